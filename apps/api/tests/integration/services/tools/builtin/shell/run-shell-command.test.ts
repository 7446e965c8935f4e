/**
 * runShellCommand with real processes: timeouts and aborts leave no process
 * behind (checked by pid), background children cannot hold the call open,
 * output caps are exact, and a huge output does not grow the server's memory.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type RunShellCommandOptions,
  runShellCommand,
} from '../../../../../../src/services/tools/builtin/shell/run-shell-command';
import { findShellInterpreter } from '../../../../../../src/services/tools/builtin/shell/shell-interpreters';
import { ToolAbortedError, ToolTimeoutError } from '../../../../../../src/services/tools/errors';
import { createPidJanitor, isRunning, pidsIn } from '../../../../../support/processes';
import { waitUntil } from '../../../../../support/wait-until';

const bash = findShellInterpreter('bash');
if (!bash)
  throw new Error('bash is required by this suite (.ci/install-system-packages installs it)');
const janitor = createPidJanitor();
// The commands run here, so whatever they write stays in the suite's own directory.
const directory = realpathSync(mkdtempSync(path.join(tmpdir(), 'run-shell-command-')));
afterAll(() => {
  janitor.killLeftovers();
  rmSync(directory, { recursive: true, force: true });
});

function run(command: string, overrides: Partial<RunShellCommandOptions> = {}) {
  return runShellCommand({
    interpreter: bash as NonNullable<typeof bash>,
    command,
    cwd: directory,
    timeoutMs: 10_000,
    maxOutputBytes: 1024,
    ...overrides,
  });
}

/** Runs `command`, which echoes the pids it starts one per line, and returns the result and those pids. */
async function runTracked(command: string, overrides: Partial<RunShellCommandOptions> = {}) {
  const result = await run(command, overrides);
  return { result, pids: janitor.track(pidsIn(result.stdout)) };
}

describe('runShellCommand: normal runs', () => {
  test('captures stdout, stderr and a non-zero exit as a normal result', async () => {
    const result = await run('echo out; echo err >&2; exit 3');
    expect(result).toMatchObject({
      shell: 'bash',
      command: 'echo out; echo err >&2; exit 3',
      cwd: directory,
      exitCode: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
      droppedBytes: 0,
      termination: 'exited',
      sandboxed: false,
    });
    expect(result.survivingPids).toBeUndefined();
  });

  test('stdin is closed: a read gets end of input at once', async () => {
    const result = await run('if read -r line; then echo "got $line"; else echo eof; fi');
    expect(result.stdout).toBe('eof\n');
  });

  test('a shell killed by a signal it did not get from us is "signalled"', async () => {
    const result = await run('kill -KILL $$');
    expect(result.termination).toBe('signalled');
    expect(result.signal).toBe('SIGKILL');
    expect(result.exitCode).toBeNull();
  });

  test('the command runs in its own session and process group', async () => {
    const result = await run('ps -o pid= -o pgid= -o sid= -p $$');
    const [pid, pgid, sid] = result.stdout.trim().split(/\s+/).map(Number);
    expect(pgid).toBe(pid as number);
    expect(sid).toBe(pid as number);
  });
});

describe('runShellCommand: nothing outlives the call', () => {
  test('sleep 100 ends at the budget as timed_out', async () => {
    const result = await run('sleep 100', { timeoutMs: 300 });
    expect(result.termination).toBe('timed_out');
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGKILL');
  });

  test('a timeout kills background jobs, setsid children, double forks and children that ignore SIGTERM', async () => {
    const { result, pids } = await runTracked(
      [
        'sleep 100 & echo $!',
        'setsid sleep 100 & echo $!',
        '( sleep 100 & echo $! )',
        // The last child tells its pid through a file, so the shell waits until it runs.
        'bash -c \'trap "" TERM; echo $$ > ignores-term; sleep 100\' &',
        'until [ -s ignores-term ]; do sleep 0.01; done; cat ignores-term',
        'sleep 100',
      ].join('\n'),
      { timeoutMs: 600 },
    );
    expect(result.termination).toBe('timed_out');
    expect(pids).toHaveLength(4);
    expect(pids.filter(isRunning)).toEqual([]);
    expect(result.survivingPids).toBeUndefined();
  });

  test('a child that cleared its environment and left the group is still found (tracked while attached)', async () => {
    const { result, pids } = await runTracked(
      'env -i setsid sleep 100 >/dev/null 2>&1 & echo $!; sleep 100',
      { timeoutMs: 600 },
    );
    expect(result.termination).toBe('timed_out');
    expect(pids).toHaveLength(1);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  test('after a normal exit, escaped children are killed too', async () => {
    const { result, pids } = await runTracked(
      [
        'setsid sleep 100 >/dev/null 2>&1 & echo $!',
        '( setsid sleep 100 >/dev/null 2>&1 & echo $! )',
        // Cleared environment: only the tracker (which walks the tree while the shell runs) knows it.
        'env -i setsid sleep 100 >/dev/null 2>&1 & echo $!',
        'sleep 0.6',
      ].join('\n'),
    );
    expect(result.termination).toBe('exited');
    expect(result.exitCode).toBe(0);
    expect(pids).toHaveLength(3);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  test('ending one command never touches the processes of another one running beside it', async () => {
    const pidFile = path.join(directory, 'neighbour-pid');
    const release = path.join(directory, 'neighbour-release');
    // The neighbour runs until it is released, however long the rest takes on a busy machine.
    const neighbour = runTracked(
      `sleep 100 & echo $! > ${pidFile}; echo $!; until [ -e ${release} ]; do sleep 0.01; done; echo done`,
    );
    const written = () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '';
    expect(await waitUntil(written, 10_000)).toBe(true);
    const [neighbourChild] = janitor.track(pidsIn(readFileSync(pidFile, 'utf8')));
    const { result } = await runTracked('setsid sleep 100 & sleep 100', { timeoutMs: 300 });
    expect(result.termination).toBe('timed_out');
    // The neighbour's background child is neither in the timed-out command's tree nor marked by it.
    expect(isRunning(neighbourChild as number)).toBe(true);
    writeFileSync(release, '');
    const { result: neighbourResult } = await neighbour;
    expect(neighbourResult.termination).toBe('exited');
    expect(isRunning(neighbourChild as number)).toBe(false);
  });

  test('a background child holding stdout open does not hold the call: (sleep 100 &); echo done', async () => {
    const { result } = await runTracked('(sleep 100 & echo $! >&2); echo done');
    expect(result.stdout).toBe('done\n');
    expect(result.termination).toBe('exited');
    const [pid] = janitor.track(pidsIn(result.stderr));
    expect(pid).toBeDefined();
    expect(isRunning(pid as number)).toBe(false);
  });
});

describe("runShellCommand: abort and the caller's budget", () => {
  test('a parent abort is "aborted", never a timeout, and kills the children', async () => {
    const controller = new AbortController();
    const started = path.join(directory, 'abort-started');
    const running = runTracked(
      `sleep 100 & echo $!; setsid sleep 100 & echo $!; touch ${started}; sleep 100`,
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    // Aborted once both children run, however long that takes on a busy machine.
    expect(await waitUntil(() => existsSync(started), 10_000)).toBe(true);
    controller.abort(new ToolAbortedError());
    const { result, pids } = await running;
    expect(result.termination).toBe('aborted');
    expect(result.exitCode).toBeNull();
    expect(pids).toHaveLength(2);
    expect(pids.filter(isRunning)).toEqual([]);
  });

  test("an abort whose reason is the caller's timeout is reported as timed_out", async () => {
    const controller = new AbortController();
    const running = run('sleep 100', { signal: controller.signal, timeoutMs: 60_000 });
    setTimeout(() => controller.abort(new ToolTimeoutError('budget spent')), 200);
    expect((await running).termination).toBe('timed_out');
  });

  test('an already aborted signal starts nothing and rejects with its reason', async () => {
    const controller = new AbortController();
    const reason = new ToolAbortedError();
    controller.abort(reason);
    await expect(run('echo never', { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe('runShellCommand: output caps', () => {
  test.each(['stdout', 'stderr'] as const)(
    '%s exactly at the cap is whole and not truncated',
    async (stream) => {
      const redirect = stream === 'stderr' ? ' >&2' : '';
      const result = await run(`head -c 1024 /dev/zero | tr '\\0' a${redirect}`);
      expect(result[stream]).toBe('a'.repeat(1024));
      expect(result.truncated).toBe(false);
      expect(result.droppedBytes).toBe(0);
    },
  );

  test.each(['stdout', 'stderr'] as const)(
    '%s over the cap keeps head and tail with exact droppedBytes',
    async (stream) => {
      const redirect = stream === 'stderr' ? ' >&2' : '';
      const result = await run(`seq 1 3000${redirect}`);
      const full = `${Array.from({ length: 3000 }, (_, index) => index + 1).join('\n')}\n`;
      expect(result.truncated).toBe(true);
      expect(result.droppedBytes).toBe(full.length - 1024);
      expect(result[stream].startsWith(full.slice(0, 512))).toBe(true);
      expect(result[stream].endsWith(full.slice(-512))).toBe(true);
      expect(result[stream]).toContain(`${full.length - 1024} bytes of ${stream} dropped`);
    },
  );

  test('both streams over the cap: droppedBytes is their sum', async () => {
    const result = await run(
      "head -c 5000 /dev/zero | tr '\\0' o; head -c 3000 /dev/zero | tr '\\0' e >&2",
    );
    expect(result.droppedBytes).toBe(5000 - 1024 + 3000 - 1024);
    expect(result.truncated).toBe(true);
  });

  test('yes | head -c 200000000 finishes with bounded memory', async () => {
    Bun.gc(true);
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed + before.arrayBuffers;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed + now.arrayBuffers);
    }, 5);
    const result = await run('yes | head -c 200000000', { maxOutputBytes: 100 * 1024 });
    clearInterval(sampler);
    expect(result.termination).toBe('exited');
    expect(result.droppedBytes).toBe(200_000_000 - 100 * 1024);
    expect(result.stdout.startsWith('y\ny\n')).toBe(true);
    // 200 MB went through and none of it is kept: the heap and its buffers stay within
    // ~20-25 MB in a quiet process (the same for 1 GB of output); the bounds leave room
    // for garbage other tests in this process leave behind.
    expect(peakHeap - before.heapUsed - before.arrayBuffers).toBeLessThan(80 * 1024 * 1024);
    expect(peakRss - before.rss).toBeLessThan(96 * 1024 * 1024);
  });
});
