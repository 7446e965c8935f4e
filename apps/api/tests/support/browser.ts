/**
 * A real headless Chromium for the web UI's tests (test support). The browser
 * comes from the npm registry: `@sparticuz/chromium` ships a compressed
 * Chromium build with its own libraries, and `playwright-core` drives it.
 * The package unpacks it into `<TMPDIR>/chromium`; here TMPDIR points at a
 * temp directory of this test process while it does, so nothing is left
 * behind (the directory goes when the process ends). Nothing is downloaded
 * at run time and no system browser is needed.
 *
 * `watchPage` records what a person would notice went wrong on a page:
 * uncaught errors, console errors, requests that failed on the network, and
 * answers of 500 or above.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { runWhenProcessEnds } from './process-watchdog';

let unpacked: Promise<string> | undefined;

/** The Chromium binary, unpacked once per test process into a temp directory of its own. */
function chromiumExecutable(): Promise<string> {
  unpacked ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), 'mango-chromium-'));
    runWhenProcessEnds([['rm', '-rf', directory]]);
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = directory;
    try {
      return await sparticuz.executablePath();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  })();
  return unpacked;
}

let launched: Promise<Browser> | undefined;

/** One browser per test file (each test opens its own context). */
export function launchBrowser(): Promise<Browser> {
  launched ??= (async () =>
    chromium.launch({
      executablePath: await chromiumExecutable(),
      // The package's own flags (no sandbox: tests run as root; software GL), less
      // --single-process, which cannot hold several pages (two tabs) at once.
      args: [
        ...sparticuz.args.filter((arg) => arg !== '--single-process' && arg !== '--no-zygote'),
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      headless: true,
    }))();
  return launched;
}

export async function closeBrowser(): Promise<void> {
  const browser = launched;
  launched = undefined;
  await (await browser)?.close();
}

export interface PageProblems {
  /** Everything noticed so far, one line each. */
  list(): string[];
}

/**
 * Watches a page for problems. Refused requests the UI handles itself (a 422 it shows at the
 * field, a 404 it expects) are logged by Chromium as "Failed to load resource"; those are left to
 * the assertions on the page, and only 5xx answers count here.
 */
export function watchPage(page: Page): PageProblems {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (message.text().startsWith('Failed to load resource')) return;
    problems.push(`console error: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // A reload or a closed tab aborts the turn's stream; that is the point of re-attaching.
    if (failure.includes('ERR_ABORTED')) return;
    problems.push(`request failed: ${request.method()} ${request.url()} ${failure}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 500)
      problems.push(
        `server error: ${response.status()} ${response.request().method()} ${response.url()}`,
      );
  });
  return { list: () => [...problems] };
}
