/**
 * Nothing a shell started outlives its server (docs/tools/shell.md#when-the-server-dies): the
 * real server (`apps/api/src/index.ts`) runs as a child process, a bash call
 * starts a `sleep` in its process group and one that left it (setsid), and the
 * server is SIGKILLed mid-command. The guard kills the group at once; the next
 * start of a server sweeps up the escaped one. Run unsandboxed (the guard and
 * the sweep) and with the default setting (the sandbox, where bubblewrap works).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getSandboxStatus } from '../../src/services/tools/builtin/shell/bubblewrap-sandbox';
import { type ChildServerClient, signUpOnChild } from '../support/child-server-turns';
import { callTool, say, useFakeProviderServer } from '../support/fake-provider';
import { createPidJanitor, isRunning } from '../support/processes';
import { type ServerProcess, startServerProcess } from '../support/server-process';
import { waitUntil } from '../support/wait-until';

const fake = useFakeProviderServer();
const janitor = createPidJanitor();
let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'mango-shell-crash-'));
});
afterAll(() => {
  janitor.killLeftovers();
  rmSync(directory, { recursive: true, force: true });
});

/** Pids of running processes whose command line holds `argument`. */
function runningWithArgument(argument: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(argument);
      } catch {
        return false;
      }
    })
    .filter(isRunning);
}

function startServer(dataDir: string): Promise<ServerProcess> {
  return startServerProcess(
    { MANGO_DATA_DIR: dataDir, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: fake.baseUrl('openai') },
    { cwd: directory },
  );
}

async function startSleepingTurn(
  client: ChildServerClient,
  command: string,
  sandbox: boolean,
): Promise<void> {
  const enabled = await client.call('/api/settings/tools/bash', 'PUT', {
    enabled: true,
    parameters: { sandbox, timeoutSeconds: 600 },
  });
  expect(enabled.status).toBe(200);
  const created = await client.call('/api/chats', 'POST', { model: 'openai:gpt-5' });
  const { id } = (await created.json()) as { id: string };
  fake.enqueue('openai', callTool('bash', { command }), say('never reached'));
  // The turn runs on; its stream is not read: the server is killed under it.
  const turn = await client.call(`/api/chats/${id}/turns`, 'POST', { content: 'sleep' });
  expect(turn.status).toBe(200);
}

describe('shell processes when the server is killed', () => {
  for (const sandbox of [false, true]) {
    test(`${sandbox ? 'default (the sandbox where it works)' : 'unsandboxed'}: SIGKILL of the server mid-command leaves no process after the restart`, async () => {
      const dataDir = join(directory, `data-${sandbox}`);
      const inGroup = `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
      const escaped = `1001.${process.pid}${Math.floor(Math.random() * 1e6)}`;
      const first = await startServer(dataDir);
      let restarted: ServerProcess | undefined;
      try {
        const client = await signUpOnChild(first.url, 'crash@example.test');
        await startSleepingTurn(
          client,
          `setsid sleep ${escaped} >/dev/null 2>&1 & sleep ${inGroup}`,
          sandbox,
        );
        expect(
          await waitUntil(
            () =>
              runningWithArgument(inGroup).length === 1 &&
              runningWithArgument(escaped).length === 1,
            15_000,
          ),
        ).toBe(true);
        janitor.track([...runningWithArgument(inGroup), ...runningWithArgument(escaped)]);
        fake.requests('openai');

        first.process.kill('SIGKILL');
        await first.process.exited;
        // The group dies with the server, before anything restarts.
        expect(await waitUntil(() => runningWithArgument(inGroup).length === 0, 5_000)).toBe(true);
        if ((await getSandboxStatus()).available && sandbox) {
          // In the sandbox even the escaped one dies with it (the sandbox's pid namespace).
          expect(await waitUntil(() => runningWithArgument(escaped).length === 0, 5_000)).toBe(
            true,
          );
        }

        restarted = await startServer(dataDir);
        expect(runningWithArgument(inGroup)).toEqual([]);
        // A survivor is shown with its marker and what the restarted server logged.
        const survivors = runningWithArgument(escaped).map((pid) => ({
          pid,
          marker: readFileSync(`/proc/${pid}/environ`, 'latin1')
            .split('\0')
            .filter((entry) => entry.startsWith('MANGO_SHELL')),
          log: restarted?.lines.filter((line) => line.includes('shell')),
        }));
        expect(survivors).toEqual([]);
      } finally {
        first.process.kill('SIGKILL');
        await restarted?.stop();
      }
    });
  }
});
