/**
 * Starts `fake-provider-entry.ts` as a child process (test support, benches)
 * and talks to it over its stdin and stdout: the URL it listens on, its pace,
 * and the requests it received between `captureRequests()` and `takeRequests()`.
 */
import { join } from 'node:path';
import { raceTimeout } from '../../../src/race-timeout';
import { fakeProviderBaseUrl, type RecordedRequest } from './fake-provider-server';
import type { FakeProviderKind } from './fake-turn';

const ENTRY_POINT = join(import.meta.dir, 'fake-provider-entry.ts');

export interface FakeProviderProcessOptions {
  /** Model calls per turn (FAKE_STEPS). */
  steps?: number;
  /** The tool the steps call (FAKE_TOOL). */
  tool?: string;
  /** Text that makes a conversation's final answer hang (FAKE_HOLD_MARKER). */
  holdMarker?: string;
  /** Connections stay open between answers (FAKE_KEEP_ALIVE), as a real provider's do. */
  keepAlive?: boolean;
  timeoutMs?: number;
}

export interface FakeProviderProcess {
  url: string;
  pid: number;
  baseUrl(provider: FakeProviderKind): string;
  /** Starts keeping the requests received from now on; resolves once it does. */
  captureRequests(): Promise<void>;
  /** From now on every answer pauses `ms` after each frame (0: answers at once); resolves once it does. */
  setPace(ms: number): Promise<void>;
  /** The requests received since `captureRequests()`; stops keeping them. */
  takeRequests(): Promise<RecordedRequest[]>;
  /** Closes its stdin (it closes the server and exits) and resolves with the exit code. */
  stop(): Promise<number>;
}

export async function startFakeProviderProcess(
  options: FakeProviderProcessOptions = {},
): Promise<FakeProviderProcess> {
  const child = Bun.spawn([process.execPath, ENTRY_POINT], {
    env: {
      PATH: process.env.PATH ?? '',
      ...(options.steps === undefined ? {} : { FAKE_STEPS: String(options.steps) }),
      ...(options.tool === undefined ? {} : { FAKE_TOOL: options.tool }),
      ...(options.holdMarker === undefined ? {} : { FAKE_HOLD_MARKER: options.holdMarker }),
      ...(options.keepAlive ? { FAKE_KEEP_ALIVE: '1' } : {}),
    },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  // Each stdout line is one JSON message; whoever waits for the next one takes it.
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  const unread: Record<string, unknown>[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
        buffered = buffered.slice(newline + 1);
        const next = waiting.shift();
        if (next) next(message);
        else unread.push(message);
        newline = buffered.indexOf('\n');
      }
    }
  })();
  const nextMessage = () => {
    const message = unread.shift();
    if (message) return Promise.resolve(message);
    return new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve));
  };
  const timeoutMs = options.timeoutMs ?? 20_000;
  // The timer is cleared once the fake is up, so it never holds the caller's process open.
  const started: Record<string, unknown> = await raceTimeout(
    Promise.race([nextMessage(), child.exited.then((code) => ({ exited: code }))]),
    timeoutMs,
    { timedOut: timeoutMs },
  );
  if (typeof started.url !== 'string') {
    child.kill('SIGKILL');
    throw new Error(`The fake provider process did not start: ${JSON.stringify(started)}`);
  }
  const url = started.url;
  const send = (line: string) => {
    child.stdin.write(`${line}\n`);
    child.stdin.flush();
  };
  return {
    url,
    pid: child.pid,
    baseUrl: (provider) => fakeProviderBaseUrl(url, provider),
    async captureRequests() {
      send('capture');
      await nextMessage();
    },
    async setPace(ms) {
      send(`pace ${ms}`);
      await nextMessage();
    },
    async takeRequests() {
      send('requests');
      const message = await nextMessage();
      return message.requests as RecordedRequest[];
    },
    async stop() {
      child.stdin.end();
      const exited = await raceTimeout(child.exited, 5_000, undefined);
      if (exited !== undefined) return exited;
      child.kill('SIGKILL');
      return child.exited;
    },
  };
}
