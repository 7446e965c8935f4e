/**
 * The fake provider server in a process of its own (test support, benches), so
 * that a load bench's model answers do not share a thread with the server or
 * the load client. Every provider's calls are answered by the tool-step script
 * (`tool-step-script.ts`) the environment describes; requests are not kept,
 * except between a `capture` and a `requests` line on stdin, and a `pace <ms>`
 * line makes every answer pause that long after each frame (as a model that
 * takes its time would; 0, the default, answers at once):
 *
 *   FAKE_STEPS        model calls per turn (default 5)
 *   FAKE_TOOL         the tool each step but the last calls (default get_current_datetime)
 *   FAKE_HOLD_MARKER  text that makes a conversation's final answer hang (optional)
 *   FAKE_KEEP_ALIVE   1: connections stay open between answers, as a real provider's do
 *
 * stdout: `{"url": …}` once it listens; `{"capturing": true}` after `capture`;
 * after `requests`, `{"requests": [...]}` with every request received since
 * `capture`, in order; `{"pace": ms}` after `pace`.
 */
import { createInterface } from 'node:readline';
import { PROVIDER_IDS } from '../../../src/services/providers/provider-registry';
import { type RecordedRequest, startFakeProviderServer } from './fake-provider-server';
import { createToolStepResponder } from './tool-step-script';

const steps = Number(process.env.FAKE_STEPS ?? 5);
if (!Number.isInteger(steps) || steps < 1) {
  console.error(`FAKE_STEPS must be a whole number of model calls, at least 1; got "${steps}".`);
  process.exit(2);
}
const respond = createToolStepResponder({
  steps,
  tool: process.env.FAKE_TOOL || 'get_current_datetime',
  ...(process.env.FAKE_HOLD_MARKER ? { holdMarker: process.env.FAKE_HOLD_MARKER } : {}),
});
const fake = await startFakeProviderServer({
  recordRequests: false,
  keepAlive: process.env.FAKE_KEEP_ALIVE === '1',
});
let captured: RecordedRequest[] | undefined;
let paceMs = 0;
for (const id of PROVIDER_IDS)
  fake.respondWith(id, (request) => {
    captured?.push(request);
    return { ...respond(request), ...(paceMs > 0 ? { frameDelayMs: paceMs } : {}) };
  });

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim();
  if (command === 'capture') {
    captured = [];
    console.log(JSON.stringify({ capturing: true }));
  } else if (command.startsWith('pace ')) {
    const ms = Number(command.slice('pace '.length));
    paceMs = Number.isFinite(ms) && ms > 0 ? ms : 0;
    console.log(JSON.stringify({ pace: paceMs }));
  } else if (command === 'requests') {
    console.log(JSON.stringify({ requests: captured ?? [] }));
    captured = undefined;
  }
});
process.stdin.on('end', () => void fake.close().then(() => process.exit(0)));
console.log(JSON.stringify({ url: fake.url }));
