/**
 * The web UI in a headless Chromium from a local server (docs/web-ui.md#benchmark):
 *
 * - bundle: the JavaScript and CSS the chat route loads, raw and gzipped
 *   (target: JavaScript ≤ 200 KB gzipped);
 * - first load: from navigation to the chat page ready (`data-state="idle"`,
 *   its messages drawn), each in a fresh browser context (no cache), by the
 *   page's own clock (a MutationObserver notes `performance.now()`, counted
 *   from navigation start; target: ≤ 300 ms), and as the driver saw it (from
 *   `goto` to the answer of an evaluate that waits for it), against a
 *   navigation to a small JSON route of the same server;
 * - streaming: a turn of DELTAS text deltas from the fake provider; how long
 *   after the stream's last frame reaches the page the last delta is on screen
 *   (target ≤ 100 ms), and the long tasks meanwhile (target: none over 50 ms).
 *
 * The machine's load average is printed with the figures: on a shared
 * machine, other processes stretch every task.
 *
 *   npm run bench:web                      (LOADS=10 DELTAS=10000)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureWebBuild } from '@mango/web/build';
import { closeBrowser, launchBrowser } from '../apps/api/tests/support/browser';
import { cpuTimes, mainThreads, type TraceEvent } from './chrome-trace';
import { startWebBenchApp } from './web-bench-app';

const LOADS = Number(process.env.LOADS ?? 10);
const DELTAS = Number(process.env.DELTAS ?? 10_000);
const MARKER = 'END-OF-THE-STREAM';

const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')}`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

console.log(`start: ${load()}`);

// Bundle.
const web = await ensureWebBuild();
// What the chat route loads: the page's script and style, and the chunk the script imports at
// once (the markdown renderer) — every file under assets/.
const assets = readdirSync(join(web.directory, 'assets')).map((name) => `assets/${name}`);
let js = 0;
let jsGzip = 0;
let css = 0;
for (const asset of assets) {
  const bytes = readFileSync(join(web.directory, asset));
  if (asset.endsWith('.js')) {
    js += bytes.length;
    jsGzip += gzipSync(bytes).length;
  } else if (asset.endsWith('.css')) css += bytes.length;
}
console.log(
  `bundle: JavaScript ${kb(js)} (${kb(jsGzip)} gzipped) in ${assets.filter((asset) => asset.endsWith('.js')).length} files, CSS ${kb(css)}`,
);

// A server with the UI and the fake provider.
const bench = await startWebBenchApp(web.directory, 'Bench');
const { fake, app, chat, cookies } = bench;
const browser = await launchBrowser();

// First loads, each in a fresh context, interleaved with the baseline.
const loads: number[] = [];
const driverLoads: number[] = [];
const baselines: number[] = [];
for (let round = 0; round < LOADS; round++) {
  const context = await browser.newContext();
  await context.addCookies(cookies);
  // The page's clock when the chat is ready (measured in the page, so the driver's own work in
  // the page, such as its selector engine, is not part of it).
  await context.addInitScript(() => {
    const ready = new Promise<number>((resolve) => {
      const isReady = () => document.querySelector('[data-testid="chat"][data-state="idle"]');
      const observer = new MutationObserver(() => {
        if (!isReady()) return;
        observer.disconnect();
        resolve(performance.now());
      });
      observer.observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['data-state'],
      });
    });
    (window as unknown as { chatReady: Promise<number> }).chatReady = ready;
  });
  const tab = await context.newPage();
  // The baseline: a navigation to a small JSON route of the same server, same context.
  let started = Date.now();
  await tab.goto(`${app.url}/api/health`);
  baselines.push(Date.now() - started);
  started = Date.now();
  await tab.goto(`${app.url}/chats/${chat.id}`);
  loads.push(
    await tab.evaluate(() => (window as unknown as { chatReady: Promise<number> }).chatReady),
  );
  driverLoads.push(Date.now() - started);
  await context.close();
}
const ms = (values: number[], p: number) => `${percentile(values, p).toFixed(0)} ms`;
console.log(
  `first load of /chats/:id to ready, in the page from navigation start: median ${ms(loads, 50)}, p90 ${ms(loads, 90)} (target ≤ 300); as the driver saw it: median ${ms(driverLoads, 50)}, p90 ${ms(driverLoads, 90)}; baseline, a navigation to GET /api/health: median ${ms(baselines, 50)}; ${load()}`,
);

// Streaming DELTAS text deltas.
const text = `${Array.from({ length: DELTAS - 1 }, (_, index) =>
  index % 40 === 39 ? '\n\n' : `w${index % 10} `,
).join('')}${MARKER}`;
fake.respondWith('openai', () => ({
  content: [{ type: 'text', text }],
  fragmentSize: 3,
}));
const context = await browser.newContext();
await context.addCookies(cookies);
// Instrumentation (bench only): when the stream's bytes holding the marker reach the page, when
// the marker is on screen, and the long tasks meanwhile.
await context.addInitScript((marker: string) => {
  const probe = { arrivedAt: 0, shownAt: 0, longTasks: [] as number[], frames: 0 };
  (window as unknown as { probe: typeof probe }).probe = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
  const original = window.fetch.bind(window);
  const probed = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await original(input, init);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body)
      return response;
    const [mine, theirs] = response.body.tee();
    void (async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        probe.frames++;
        // The provider's end of the model call follows its last delta in the same flush.
        if (!probe.arrivedAt && value.includes('"type":"turn_completed"'))
          probe.arrivedAt = performance.now();
      }
    })();
    return new Response(theirs, response);
  };
  window.fetch = Object.assign(probed, { preconnect: () => {} }) as typeof fetch;
  const watch = () => {
    const last = [...document.querySelectorAll('.markdown')].at(-1);
    if (last?.textContent?.includes(marker)) {
      probe.shownAt = performance.now();
      return;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}, MARKER);
const tab = await context.newPage();
await tab.goto(`${app.url}/chats/${chat.id}`);
await tab.locator('[data-testid="chat"][data-state="idle"]').waitFor();
await tab.evaluate(() => {
  (window as unknown as { probe: { longTasks: number[] } }).probe.longTasks.length = 0;
});
// A light trace of the page's tasks meanwhile, for their CPU time (thread time): on a busy machine a
// task's wall time also counts the time its thread waited for a core.
const cdp = await context.newCDPSession(tab);
const traced: TraceEvent[] = [];
cdp.on('Tracing.dataCollected', ({ value }) => traced.push(...(value as unknown as TraceEvent[])));
const traceDone = new Promise<void>((resolve) =>
  cdp.once('Tracing.tracingComplete', () => resolve()),
);
await cdp.send('Tracing.start', {
  transferMode: 'ReportEvents',
  traceConfig: { includedCategories: ['toplevel', '__metadata'] },
});
const startedAt = Date.now();
await tab.getByTestId('composer').fill('Stream a long answer.');
await tab.getByTestId('composer').press('Enter');
await tab.waitForFunction(
  () => (window as unknown as { probe: { shownAt: number } }).probe.shownAt > 0,
  undefined,
  { timeout: 120_000 },
);
const probe = await tab.evaluate(
  () =>
    (
      window as unknown as {
        probe: { arrivedAt: number; shownAt: number; longTasks: number[]; frames: number };
      }
    ).probe,
);
const streamMs = Date.now() - startedAt;
await cdp.send('Tracing.end');
await traceDone;
const threads = mainThreads(traced);
// The top-level task event of the `toplevel` category.
const taskCpu = cpuTimes(traced, 'ThreadControllerImpl::RunTask', threads);
const longest = Math.max(0, ...probe.longTasks);
console.log(
  `streaming ${DELTAS} deltas (${kb(text.length)} of text, ${probe.frames} network reads, ${streamMs} ms in all): last delta on screen ${(probe.shownAt - probe.arrivedAt).toFixed(0)} ms after it arrived (target ≤ 100); long tasks: ${probe.longTasks.length}, longest ${longest.toFixed(0)} ms (target ≤ 50); the page's tasks by CPU time: longest ${taskCpu
    .slice(0, 3)
    .map((value) => value.toFixed(0))
    .join(', ')} ms, ${taskCpu.filter((value) => value > 50).length} over 50; ${load()}`,
);

await context.close();
await closeBrowser();
await bench.stop();
process.exit(0);
