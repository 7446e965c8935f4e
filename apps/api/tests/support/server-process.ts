/**
 * Starts the real server entry point (`apps/api/src/index.ts`), or another
 * entry point that prints its URL the same way, as a child process on a free
 * port and waits for its "listening" log line.
 */
import { join } from 'node:path';
import { raceTimeout } from '../../src/race-timeout';

const ENTRY_POINT = join(import.meta.dir, '../../src/index.ts');

export interface ServerProcess {
  url: string;
  process: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  /** Every stdout line so far. */
  lines: string[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number>;
}

export async function startServerProcess(
  env: Record<string, string>,
  options: {
    cwd?: string;
    timeoutMs?: number;
    entryPoint?: string;
    /** The whole command instead of Bun running the entry point (e.g. `npm start`). */
    command?: string[];
  } = {},
): Promise<ServerProcess> {
  const child = Bun.spawn(
    options.command ?? [process.execPath, options.entryPoint ?? ENTRY_POINT],
    {
      cwd: options.cwd,
      // Only what the test names, so a developer's own .env or variables cannot leak in.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  const lines: string[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  let resolveUrl: (url: string) => void = () => {};
  const urlPromise = new Promise<string>((resolve) => {
    resolveUrl = resolve;
  });
  void (async () => {
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        try {
          const entry = JSON.parse(line) as { url?: string };
          if (entry.url) resolveUrl(entry.url);
        } catch {
          // Not a log line; kept in `lines` for the assertion messages.
        }
        newline = buffered.indexOf('\n');
      }
    }
  })();
  const timeoutMs = options.timeoutMs ?? 20_000;
  // The timer is cleared once the server is up, so it never holds the caller's process open.
  const outcome = await raceTimeout(
    Promise.race([urlPromise, child.exited.then((code) => ({ exited: code }))]),
    timeoutMs,
    { timedOut: true },
  );
  if (typeof outcome !== 'string') {
    child.kill('SIGKILL');
    const stderr = await new Response(child.stderr).text();
    throw new Error(
      `The server did not start (${JSON.stringify(outcome)}).\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
    );
  }
  return {
    url: outcome,
    process: child,
    lines,
    async stop() {
      child.kill('SIGTERM');
      return child.exited;
    },
  };
}
