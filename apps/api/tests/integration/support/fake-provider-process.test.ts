/**
 * The fake provider in a process of its own (tests/support/fake-provider/
 * fake-provider-entry.ts), as the load bench uses it: the tool-step script
 * through each provider's real adapter, its pace, the requests it captures,
 * a held answer, a server that keeps no requests when told not to, and one
 * that keeps its connections open between answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect, type Socket } from 'node:net';
import type { ConversationMessage, ProviderStreamEvent } from '@mango/shared';
import { PROVIDER_IDS } from '../../../src/services/providers/provider-registry';
import type { ProviderId, ProviderRequest } from '../../../src/services/providers/spec';
import {
  answeredToolSteps,
  createToolStepResponder,
  type FakeProviderProcess,
  FINAL_ANSWER,
  startFakeProviderProcess,
  startFakeProviderServer,
} from '../../support/fake-provider';
import { isRunning } from '../../support/processes';
import { createProviderForFake, MODEL_FOR } from '../../support/provider-factories';

const HOLD = 'hold the final answer';
let fake: FakeProviderProcess;
beforeAll(async () => {
  fake = await startFakeProviderProcess({ steps: 3, tool: 'probe', holdMarker: HOLD });
});
afterAll(async () => {
  await fake.stop();
});

const tools: ProviderRequest['tools'] = [
  { name: 'probe', description: 'Answers.', parameters: { type: 'object', properties: {} } },
];

/** A conversation asking `text`, with `steps` tool calls already answered. */
function history(text: string, steps: number): ConversationMessage[] {
  const messages: ConversationMessage[] = [{ role: 'user', parts: [{ type: 'text', text }] }];
  for (let step = 1; step <= steps; step++) {
    const toolCallId = `call_${step}`;
    messages.push(
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            toolCallId,
            name: 'probe',
            arguments: '{}',
            status: 'succeeded',
            durationMs: 1,
          },
        ],
      },
      {
        role: 'tool',
        parts: [{ type: 'tool_result', toolCallId, name: 'probe', content: '{}', isError: false }],
      },
    );
  }
  return messages;
}

const processBaseUrls = { baseUrl: (kind: ProviderId) => fake.baseUrl(kind) };

/** One model call through the provider's adapter, pointed at the process. */
async function modelCall(id: ProviderId, messages: ProviderRequest['messages']) {
  const provider = createProviderForFake(id, processBaseUrls);
  const events: ProviderStreamEvent[] = [];
  for await (const event of provider.streamTurn({ model: MODEL_FOR[id], messages, tools }))
    events.push(event);
  return events;
}

const textOf = (events: ProviderStreamEvent[]) =>
  events
    .filter((event) => event.type === 'text_delta')
    .map((event) => (event as { delta: string }).delta)
    .join('');
const callsIn = (events: ProviderStreamEvent[]) =>
  events.filter((event) => event.type === 'tool_call_completed');

describe('the fake provider process', () => {
  for (const id of PROVIDER_IDS)
    test(`${id}: each step but the last calls the tool; the last answers in text`, async () => {
      const first = await modelCall(id, history('Run the steps.', 0));
      expect(callsIn(first)).toEqual([expect.objectContaining({ name: 'probe', arguments: '{}' })]);
      expect(callsIn(await modelCall(id, history('Run the steps.', 1)))).toHaveLength(1);
      const last = await modelCall(id, history('Run the steps.', 2));
      expect(textOf(last)).toBe(FINAL_ANSWER);
      expect(callsIn(last)).toEqual([]);
    });

  test('it hands back the requests received between capture and take, and keeps none after', async () => {
    await fake.captureRequests();
    await modelCall('openai-compatible', history('one', 0));
    await modelCall('anthropic', history('two', 0));
    const requests = await fake.takeRequests();
    expect(requests.map((request) => request.provider)).toEqual(['openai-compatible', 'anthropic']);
    expect(JSON.stringify(requests[0]?.body)).toContain('"one"');
    await modelCall('openai-compatible', history('three', 0));
    await fake.captureRequests();
    expect(await fake.takeRequests()).toEqual([]);
  });

  test('a pace makes every frame wait; pace 0 answers at once again', async () => {
    await fake.setPace(60);
    let started = performance.now();
    await modelCall('openai-compatible', history('go', 0));
    // A tool call is six frames here: role, call, arguments, finish, usage, [DONE].
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    await fake.setPace(0);
    started = performance.now();
    await modelCall('openai-compatible', history('go', 0));
    expect(performance.now() - started).toBeLessThan(300);
  });

  for (const id of PROVIDER_IDS)
    test(`${id}: a conversation naming the hold marker gets its answer's first words, then nothing`, async () => {
      const provider = createProviderForFake(id, processBaseUrls);
      const controller = new AbortController();
      const stream = provider
        .streamTurn({
          model: MODEL_FOR[id],
          messages: history(`Run the steps, then ${HOLD}.`, 2),
          tools,
          signal: controller.signal,
        })
        [Symbol.asyncIterator]();
      let event = await stream.next();
      while (!event.done && event.value.type !== 'text_delta') event = await stream.next();
      expect(event.value).toMatchObject({ type: 'text_delta' });
      const next = await Promise.race([
        stream.next(),
        Bun.sleep(300).then(() => 'silent' as const),
      ]);
      expect(next).toBe('silent');
      controller.abort();
      await stream.return?.(undefined);
    });

  test('stop ends the process', async () => {
    const other = await startFakeProviderProcess();
    expect(isRunning(other.pid)).toBe(true);
    expect(await other.stop()).toBe(0);
    expect(isRunning(other.pid)).toBe(false);
  });
});

describe('the tool-step script', () => {
  test('the step is read from the tool results the request carries, in every wire format', async () => {
    const server = await startFakeProviderServer({ recordRequests: false });
    try {
      const seen: number[] = [];
      const respond = createToolStepResponder({ steps: 2, tool: 'probe' });
      for (const id of PROVIDER_IDS)
        server.respondWith(id, (request) => {
          seen.push(answeredToolSteps(request));
          return respond(request);
        });
      for (const id of PROVIDER_IDS) {
        const provider = createProviderForFake(id, server);
        const events: ProviderStreamEvent[] = [];
        for await (const event of provider.streamTurn({
          model: MODEL_FOR[id],
          messages: history('go', 1),
          tools,
        }))
          events.push(event);
        expect(textOf(events)).toBe(FINAL_ANSWER);
      }
      expect(seen).toEqual([1, 1, 1, 1]);
      // Told to keep no requests, it keeps none.
      expect(server.requests()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

/** A raw HTTP/1.1 client on one TCP connection: what a pooled SDK connection does. */
function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on('data', (data) => {
    received += data.toString('utf8');
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    /** Sends one chat-completions request; resolves with the whole answer, or what came before the close. */
    async ask(text: string): Promise<string> {
      const body = JSON.stringify({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: text }],
      });
      const from = received.length;
      socket.write(
        `POST /openai-compatible/v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await until(() => ended || received.slice(from).includes('\r\n0\r\n\r\n'));
      return received.slice(from);
    },
    closed: () => ended,
    settle: (ms: number) => Bun.sleep(ms),
    destroy: () => socket.destroy(),
  };
}

describe('keep-alive', () => {
  const answer = (text: string) => ({ content: [{ type: 'text' as const, text }] });

  test('with keepAlive, one connection carries one answer after another', async () => {
    const server = await startFakeProviderServer({ keepAlive: true });
    const connection = rawConnection(server.url);
    try {
      server.enqueue('openai-compatible', answer('first'), answer('second'));
      const first = await connection.ask('one');
      expect(first).toStartWith('HTTP/1.1 200 OK');
      expect(first.toLowerCase()).not.toContain('connection: close');
      expect(first).toContain('first');
      await connection.settle(50);
      expect(connection.closed()).toBe(false);
      const second = await connection.ask('two');
      expect(second).toStartWith('HTTP/1.1 200 OK');
      expect(second).toContain('second');
      expect(server.requests().map((request) => JSON.stringify(request.body))).toEqual([
        expect.stringContaining('"one"'),
        expect.stringContaining('"two"'),
      ]);
      expect(server.openConnections()).toBe(1);
    } finally {
      connection.destroy();
      await server.close();
    }
  });

  test('by default an answer closes its connection', async () => {
    const server = await startFakeProviderServer();
    const connection = rawConnection(server.url);
    try {
      server.enqueue('openai-compatible', answer('first'), answer('second'));
      const first = await connection.ask('one');
      expect(first.toLowerCase()).toContain('connection: close');
      await connection.settle(50);
      expect(connection.closed()).toBe(true);
      expect(server.requests()).toHaveLength(1);
      expect(server.pending('openai-compatible')).toBe(1);
    } finally {
      connection.destroy();
      await server.close();
    }
  });

  test('the process passes keepAlive on to its server', async () => {
    const process = await startFakeProviderProcess({ steps: 1, keepAlive: true });
    const connection = rawConnection(process.url);
    try {
      expect(await connection.ask('one')).toContain(FINAL_ANSWER.slice(0, 6));
      expect(await connection.ask('two')).toContain(FINAL_ANSWER.slice(0, 6));
      expect(connection.closed()).toBe(false);
    } finally {
      connection.destroy();
      await process.stop();
    }
  });
});

describe('pacing', () => {
  test("paced frames keep their schedule when the fake's own timers fire late", async () => {
    const server = await startFakeProviderServer();
    try {
      // Role, four fragments, finish, usage, [DONE]: eight frames, the last due 350 ms after the first.
      server.enqueue('openai-compatible', {
        content: [{ type: 'text', text: 'abcdefghijkl' }],
        fragmentSize: 3,
        frameDelayMs: 50,
      });
      const response = await fetch(`${server.baseUrl('openai-compatible')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'paced', messages: [], stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      const firstFrameAt = performance.now();
      // The fake shares this thread: its timers cannot fire for 300 ms.
      while (performance.now() - firstFrameAt < 300) {}
      let text = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += new TextDecoder().decode(chunk.value);
      const elapsed = performance.now() - firstFrameAt;
      expect(text).toContain('[DONE]');
      // On schedule: the stream ends 400 ms after its first frame (the end follows the last
      // frame's pause), less however long that frame took to reach this reader; sent all at
      // once after the block, it would end at about 300. Pauses counted from each late frame
      // would end it at 300 + 7 × 50 ms.
      expect(elapsed).toBeGreaterThanOrEqual(340);
      expect(elapsed).toBeLessThan(560);
    } finally {
      await server.close();
    }
  });
});
