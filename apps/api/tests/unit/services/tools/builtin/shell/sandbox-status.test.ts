/**
 * How the sandbox's status is found and kept: the PATH search for `bwrap` is
 * remembered for a while, the same status comes back as the same promise, and
 * a shell tool answers a non-admin's listing at once once it knows the status.
 */
import { describe, expect, test } from 'bun:test';
import {
  createRememberedLookup,
  getSandboxStatus,
  type SandboxStatus,
} from '../../../../../../src/services/tools/builtin/shell/bubblewrap-sandbox';
import {
  buildShellTool,
  sandboxRequiredReason,
} from '../../../../../../src/services/tools/builtin/shell/shell-tool';
import type { ToolScope } from '../../../../../../src/services/tools/types';

/** A lookup that counts its searches, on a clock and a PATH the test moves. */
function countingLookup(answers: Record<string, string>) {
  const searched: string[] = [];
  const state = { now: 0, path: '/usr/bin:/bin' as string | undefined };
  const lookup = createRememberedLookup(
    (command) => {
      searched.push(command);
      return answers[command] ?? null;
    },
    { ttlMs: 1_000, now: () => state.now, path: () => state.path },
  );
  return { lookup, searched, state };
}

describe('the remembered PATH lookup', () => {
  test('searches once while the answer is younger than its time to live', () => {
    const { lookup, searched, state } = countingLookup({ bwrap: '/usr/bin/bwrap' });
    expect(lookup('bwrap')).toBe('/usr/bin/bwrap');
    state.now = 999;
    expect(lookup('bwrap')).toBe('/usr/bin/bwrap');
    expect(searched).toEqual(['bwrap']);
  });

  test('searches again once the answer has aged, so a program installed later is found', () => {
    const answers: Record<string, string> = {};
    const { lookup, searched, state } = countingLookup(answers);
    expect(lookup('bwrap')).toBeNull();
    answers.bwrap = '/usr/bin/bwrap';
    state.now = 500;
    expect(lookup('bwrap')).toBeNull();
    state.now = 1_000;
    expect(lookup('bwrap')).toBe('/usr/bin/bwrap');
    expect(searched).toEqual(['bwrap', 'bwrap']);
  });

  test('searches again at once when the PATH changes', () => {
    const { lookup, searched, state } = countingLookup({ bwrap: '/usr/bin/bwrap' });
    lookup('bwrap');
    state.path = '/opt/bin:/usr/bin';
    lookup('bwrap');
    state.path = undefined;
    lookup('bwrap');
    expect(searched).toEqual(['bwrap', 'bwrap', 'bwrap']);
  });

  test('keeps each command’s answer apart', () => {
    const { lookup, searched } = countingLookup({ bwrap: '/usr/bin/bwrap' });
    expect(lookup('bwrap')).toBe('/usr/bin/bwrap');
    expect(lookup('zsh')).toBeNull();
    expect(lookup('bwrap')).toBe('/usr/bin/bwrap');
    expect(lookup('zsh')).toBeNull();
    expect(searched).toEqual(['bwrap', 'zsh']);
  });
});

describe('the sandbox status', () => {
  test('without bubblewrap: not available, said so, the same promise each time', async () => {
    const notFound = () => null;
    const first = getSandboxStatus(notFound);
    expect(getSandboxStatus(notFound)).toBe(first);
    const status = await first;
    expect(status.available).toBe(false);
    expect(status.reason).toBe('bubblewrap (bwrap) is not installed.');
  });

  test('an executable is probed once: its status is the same promise each time', async () => {
    // A path that cannot start: the probe's failure is the status, learnt once.
    const missing = () => '/nonexistent/mango-test/bwrap';
    const first = getSandboxStatus(missing);
    expect(getSandboxStatus(missing)).toBe(first);
    const status = await first;
    expect(status.available).toBe(false);
    expect(status.executable).toBe('/nonexistent/mango-test/bwrap');
    expect(status.reason).toStartWith('bubblewrap could not be started');
  });

  test('the default lookup hands out one promise while its answer stands', async () => {
    const first = getSandboxStatus();
    expect(getSandboxStatus()).toBe(first);
    expect(typeof (await first).available).toBe('boolean');
  });
});

describe('a shell tool’s availability for a user with granted roots', () => {
  const bash = {
    shell: 'bash' as const,
    executable: '/bin/bash',
    commandArguments: (command: string) => ['-c', command],
  };
  const granted: ToolScope = { userId: 'u', hostAccess: { kind: 'granted', roots: ['/srv/u'] } };
  const unavailable: SandboxStatus = { available: false, reason: 'no user namespaces' };

  test('is a promise until the status is known, then an answer at once', async () => {
    const pending = Promise.resolve(unavailable);
    const tool = buildShellTool(bash, { sandboxStatus: () => pending });
    const first = tool.unavailableReason?.(granted);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(sandboxRequiredReason(unavailable));
    expect(tool.unavailableReason?.(granted)).toBe(sandboxRequiredReason(unavailable));
  });

  test('a working sandbox makes the shell available at once after the first answer', async () => {
    const pending = Promise.resolve<SandboxStatus>({
      available: true,
      executable: '/usr/bin/bwrap',
    });
    const tool = buildShellTool(bash, { sandboxStatus: () => pending });
    expect(await tool.unavailableReason?.(granted)).toBeUndefined();
    expect(tool.unavailableReason?.(granted)).toBeUndefined();
  });

  test('a status handed out as a new promise each time is waited for each time, and a change is seen', async () => {
    let status: SandboxStatus = unavailable;
    const tool = buildShellTool(bash, { sandboxStatus: async () => status });
    expect(await tool.unavailableReason?.(granted)).toBe(sandboxRequiredReason(unavailable));
    status = { available: true, executable: '/usr/bin/bwrap' };
    const second = tool.unavailableReason?.(granted);
    expect(second).toBeInstanceOf(Promise);
    expect(await second).toBeUndefined();
  });

  test('an admin’s shell does not ask for the sandbox', () => {
    let asked = 0;
    const tool = buildShellTool(bash, {
      sandboxStatus: () => {
        asked += 1;
        return Promise.resolve(unavailable);
      },
    });
    expect(
      tool.unavailableReason?.({ userId: 'a', hostAccess: { kind: 'admin' } }),
    ).toBeUndefined();
    expect(asked).toBe(0);
  });
});
