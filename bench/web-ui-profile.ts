/**
 * Where the web UI spends its time (docs/web-ui.md#benchmark): the scenarios of
 * `bench:web` (a first load of a chat, a turn of DELTAS streamed text deltas)
 * recorded as a Chrome trace through the DevTools protocol, with V8's sampling
 * profiler in it, and summed up: each task over LONG_MS with the work inside it
 * (script, style, layout, paint, garbage collection) and the functions it sampled
 * most; for the first load, what ran when between navigation and the chat ready.
 * Tasks are given in wall time and in CPU time (the trace's thread time): on a
 * busy machine a task of little CPU can last long because the thread waited.
 * The UI is built with readable function names (identifiers not minified) for this.
 *
 *   npm run bench:web:profile              (DELTAS=10000 LONG_MS=40 LOADS=3)
 *   TRACE_DIR=<directory> npm run bench:web:profile   also writes the traces there
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWeb } from '@mango/web/build';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { closeBrowser, launchBrowser } from '../apps/api/tests/support/browser';
import { mainThreads, samples, selfTimes, type TraceEvent, topFunctions } from './chrome-trace';
import { numberFromEnv } from './env-options';
import { startWebBenchApp } from './web-bench-app';

const DELTAS = numberFromEnv('DELTAS', 10_000);
const LONG_MS = numberFromEnv('LONG_MS', 40);
const LOADS = numberFromEnv('LOADS', 3);
const MARKER = 'END-OF-THE-STREAM';

const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'v8',
  'blink.user_timing',
  'loading',
  'netlog',
  'disabled-by-default-v8.cpu_profiler',
].join(',');

async function traced(page: Page, context: BrowserContext, run: () => Promise<void>) {
  const cdp: CDPSession = await context.newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', ({ value }) =>
    events.push(...(value as unknown as TraceEvent[])),
  );
  const complete = new Promise<void>((resolve) =>
    cdp.once('Tracing.tracingComplete', () => resolve()),
  );
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: CATEGORIES.split(','), recordMode: 'recordContinuously' },
  });
  await run();
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  return events;
}

// The UI with readable names.
const temp = mkdtempSync(join(tmpdir(), 'mango-web-profile-'));
await buildWeb(join(temp, 'web'), { readableNames: true });

const bench = await startWebBenchApp(join(temp, 'web'), 'Profile');
const { fake, app, chat, cookies } = bench;
const browser = await launchBrowser();

function longTasks(events: TraceEvent[], label: string) {
  const threads = mainThreads(events);
  const all = samples(events);
  const tasks = events
    .filter(
      (event) =>
        event.name === 'RunTask' && event.ph === 'X' && threads.has(`${event.pid}:${event.tid}`),
    )
    .filter((event) => (event.dur ?? 0) > LONG_MS * 1000)
    .sort((a, b) => a.ts - b.ts);
  const all_ = events.filter(
    (event) =>
      event.name === 'RunTask' && event.ph === 'X' && threads.has(`${event.pid}:${event.tid}`),
  );
  const cpu = all_.map((task) => (task.tdur ?? 0) / 1000).sort((a, b) => b - a);
  console.log(
    `\n${label}: ${all_.length} tasks on the page's main thread; CPU time of the longest: ${cpu
      .slice(0, 10)
      .map((value) => value.toFixed(1))
      .join(', ')} ms; ${cpu.filter((value) => value > 16).length} over 16 ms of CPU`,
  );
  console.log(`${tasks.length} tasks over ${LONG_MS} ms of wall time:`);
  for (const task of tasks) {
    const thread = `${task.pid}:${task.tid}`;
    const end = task.ts + (task.dur ?? 0);
    console.log(
      `  task of ${((task.dur ?? 0) / 1000).toFixed(1)} ms (${((task.tdur ?? 0) / 1000).toFixed(1)} ms of CPU); self time by trace event:`,
    );
    for (const [name, us] of selfTimes(events, thread, task.ts, end).slice(0, 10))
      console.log(`      ${(us / 1000).toFixed(1).padStart(6)} ms  ${name}`);
    console.log(topFunctions(all, task.ts, end));
  }
}

// First loads.
for (let round = 0; round < LOADS; round++) {
  const context = await browser.newContext();
  await context.addCookies(cookies);
  const page = await context.newPage();
  await page.goto(`${app.url}/api/health`);
  let navigationStart = 0;
  let ready = 0;
  const events = await traced(page, context, async () => {
    navigationStart = performance.now();
    await page.goto(`${app.url}/chats/${chat.id}`);
    await page.locator('[data-testid="chat"][data-state="idle"]').waitFor();
    ready = performance.now();
  });
  const threads = mainThreads(events);
  const nav = events.find(
    (event) => event.name === 'navigationStart' || event.name === 'NavigationTimestamp',
  );
  const origin =
    events.filter((event) => event.name === 'ResourceSendRequest').sort((a, b) => a.ts - b.ts)[0]
      ?.ts ??
    nav?.ts ??
    0;
  console.log(
    `\nfirst load ${round + 1}: ${(ready - navigationStart).toFixed(0)} ms to ready (as playwright saw it)`,
  );
  const requests = new Map<
    string,
    { url: string; sent: number; response?: number; finished?: number }
  >();
  for (const event of events) {
    const data = event.args?.data as
      | { requestId?: string; url?: string; finishTime?: number }
      | undefined;
    if (!data?.requestId) continue;
    if (event.name === 'ResourceSendRequest')
      requests.set(data.requestId, { url: String(data.url), sent: event.ts });
    const known = requests.get(data.requestId);
    if (!known) continue;
    if (event.name === 'ResourceReceiveResponse') known.response = event.ts;
    if (event.name === 'ResourceFinish') known.finished = event.ts;
  }
  const at = (ts?: number) =>
    ts === undefined ? '   ?' : ((ts - origin) / 1000).toFixed(0).padStart(4);
  for (const request of [...requests.values()].sort((a, b) => a.sent - b.sent))
    console.log(
      `  request sent ${at(request.sent)} ms, answered ${at(request.response)}, done ${at(request.finished)}  ${request.url.replace(app.url, '')}`,
    );
  const main = events
    .filter(
      (event) => threads.has(`${event.pid}:${event.tid}`) && event.ph === 'X' && event.ts >= origin,
    )
    .filter((event) => event.name === 'RunTask' && (event.dur ?? 0) > 2000)
    .sort((a, b) => a.ts - b.ts);
  for (const task of main) {
    const thread = `${task.pid}:${task.tid}`;
    const top = selfTimes(events, thread, task.ts, task.ts + (task.dur ?? 0))
      .slice(0, 4)
      .map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`)
      .join(', ');
    console.log(`  task at ${at(task.ts)} ms, ${((task.dur ?? 0) / 1000).toFixed(1)} ms: ${top}`);
  }
  for (const mark of events.filter((event) =>
    [
      'firstContentfulPaint',
      'firstPaint',
      'domContentLoadedEventEnd',
      'loadEventEnd',
      'MarkDOMContent',
      'MarkLoad',
    ].includes(event.name),
  ))
    console.log(`  ${mark.name} at ${at(mark.ts)} ms`);
  const all = samples(events);
  console.log(
    `  functions sampled during the load:\n${topFunctions(all, origin, Number.POSITIVE_INFINITY, 10)}`,
  );
  if (process.env.TRACE_DIR)
    writeFileSync(
      join(process.env.TRACE_DIR, `first-load-${round + 1}.json`),
      JSON.stringify({ traceEvents: events }),
    );
  await context.close();
}

// Streaming.
const text = `${Array.from({ length: DELTAS - 1 }, (_, index) =>
  index % 40 === 39 ? '\n\n' : `w${index % 10} `,
).join('')}${MARKER}`;
fake.respondWith('openai', () => ({ content: [{ type: 'text', text }], fragmentSize: 3 }));
const context = await browser.newContext();
await context.addCookies(cookies);
const page = await context.newPage();
await page.goto(`${app.url}/chats/${chat.id}`);
await page.locator('[data-testid="chat"][data-state="idle"]').waitFor();
const coverage = await context.newCDPSession(page);
await coverage.send('Profiler.enable');
await coverage.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const events = await traced(page, context, async () => {
  await page.getByTestId('composer').fill('Stream a long answer.');
  await page.getByTestId('composer').press('Enter');
  await page.waitForFunction(
    (marker) => [...document.querySelectorAll('.markdown')].at(-1)?.textContent?.includes(marker),
    MARKER,
    { timeout: 120_000 },
  );
  await page.locator('[data-testid="chat"][data-state="idle"]').waitFor();
});
longTasks(events, `streaming ${DELTAS} deltas`);
{
  const { result } = (await coverage.send('Profiler.takePreciseCoverage')) as unknown as {
    result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
  };
  const counts = result
    .filter((script) => script.url.includes('/assets/'))
    .flatMap((script) => script.functions)
    .filter((fn) => fn.functionName)
    .map((fn) => [fn.functionName, fn.ranges[0]?.count ?? 0] as const)
    .sort((a, b) => b[1] - a[1]);
  // How often the drawing's steps ran (names as the unminified build keeps them).
  const wanted = [
    'Markdown',
    'lexMarkdown',
    'renderMarkdownTokens',
    'DOMPurify.sanitize',
    'publish',
  ];
  console.log(
    `\ncalls during the stream: ${counts
      .filter(([name]) => wanted.includes(name))
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  const frames = events.filter((event) => event.name === 'FireAnimationFrame').length;
  console.log(`animation frames fired: ${frames}`);
}
{
  const threads = mainThreads(events);
  const tasks = events.filter(
    (event) => event.name === 'RunTask' && threads.has(`${event.pid}:${event.tid}`),
  );
  const from = Math.min(...tasks.map((task) => task.ts));
  const to = Math.max(...tasks.map((task) => task.ts + (task.dur ?? 0)));
  console.log(`\nstreaming, the whole phase (${((to - from) / 1000).toFixed(0)} ms):`);
  console.log(topFunctions(samples(events), from, to, 15));
}
if (process.env.TRACE_DIR)
  writeFileSync(
    join(process.env.TRACE_DIR, 'streaming.json'),
    JSON.stringify({ traceEvents: events }),
  );

await context.close();
await closeBrowser();
await bench.stop();
rmSync(temp, { recursive: true, force: true });
process.exit(0);
