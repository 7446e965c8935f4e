/**
 * Settings → MCP in a real headless Chromium against the real server: an admin
 * adds an http server (a real MCP server on loopback) and a stdio one, tests
 * them (name, version, tool count; a failing one shows its error and stderr),
 * switches one off, pastes an mcpServers JSON, deletes; a second user sees the
 * shared server read-only and may not add a stdio one. Secrets never reach
 * the page.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWebBuild } from '@mango/web/build';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeBrowser, launchBrowser, type PageProblems, watchPage } from '../../support/browser';
import { SCENARIO_STDIO_ENTRY } from '../../support/mcp/mcp-fixtures';
import { type ScenarioHttpServer, startScenarioHttpServer } from '../../support/mcp/scenario-http';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { createTestDatabase, type TestDatabase } from '../../support/test-databases';

const temp = mkdtempSync(join(tmpdir(), 'mango-web-mcp-'));
/** Screenshots for a person to look at (not compared): MANGO_UI_SCREENSHOT_DIR, else the temp directory. */
const screenshots = process.env.MANGO_UI_SCREENSHOT_DIR ?? join(temp, 'screenshots');
let testDatabase: TestDatabase;
let app: TestApp;
let browser: Browser;
let http: ScenarioHttpServer;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const watched: PageProblems[] = [];

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  const [web, database, launched] = await Promise.all([
    ensureWebBuild({ directory: join(temp, 'web') }),
    createTestDatabase('sqlite'),
    launchBrowser(),
  ]);
  testDatabase = database;
  browser = launched;
  http = startScenarioHttpServer();
  app = startTestApp(testDatabase.database, {
    webDirectory: web.directory,
    mcp: { allowPrivateUrls: true },
  });
  admin = await app.signUp();
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await app?.stop();
  await http?.stop();
  await closeBrowser();
  await testDatabase?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

async function pageAs(user: TestUser, path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  await context.addCookies(
    user.cookie.split('; ').map((pair) => {
      const [name, ...rest] = pair.split('=');
      return { name: name as string, value: rest.join('='), url: app.url };
    }),
  );
  const page = await context.newPage();
  watched.push(watchPage(page));
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${app.url}${path}`);
  return page;
}

const row = (page: Page, slug: string) =>
  page.locator(`[data-testid="mcp-server"][data-slug="${slug}"]`);

test('an admin adds, tests, switches off and deletes servers; secrets stay out of the page', async () => {
  const page = await pageAs(admin, '/settings/mcp');
  await page.getByText('No MCP servers yet.').waitFor();

  // An http server with a secret header.
  await page.getByTestId('mcp-add').click();
  const form = page.getByTestId('mcp-form');
  await form.getByLabel('Name', { exact: true }).fill('Remote tools');
  await form.getByLabel('URL', { exact: true }).fill(http.url);
  await form.getByRole('button', { name: '+ Add' }).click();
  await form.getByLabel('Headers name 1').fill('Authorization');
  await form.getByLabel('Headers value 1').fill('Bearer page-secret-42');
  await form.getByRole('button', { name: 'Add server' }).click();
  const remote = row(page, 'remote-tools');
  await remote.waitFor();
  expect(await remote.getByTestId('mcp-status').textContent()).toBe('idle');
  expect(await remote.textContent()).toContain('not listed yet');

  await remote.getByTestId('mcp-test').click();
  await remote.getByTestId('mcp-test-result').waitFor();
  expect(await remote.getByTestId('mcp-test-result').textContent()).toContain('scenario-server');
  await page.waitForFunction(
    () =>
      document.querySelector('[data-slug="remote-tools"] [data-testid="mcp-status"]')
        ?.textContent === 'ready',
  );
  expect(http.authorizations).toContain('Bearer page-secret-42');

  // A stdio server that fails at start shows its error and its stderr.
  await page.getByTestId('mcp-add').click();
  await form.getByLabel('Name', { exact: true }).fill('Broken local');
  await form.getByLabel('Type', { exact: true }).selectOption('stdio');
  await form.getByLabel('Command', { exact: true }).fill(process.execPath);
  await form.getByLabel('Arguments, one per line').fill(SCENARIO_STDIO_ENTRY);
  await form.getByRole('button', { name: '+ Add' }).click();
  await form.getByLabel('Environment name 1').fill('MCP_EXIT_AT_START');
  await form.getByLabel('Environment value 1').fill('1');
  await form.getByRole('button', { name: 'Add server' }).click();
  const broken = row(page, 'broken-local');
  await broken.getByTestId('mcp-test').click();
  await broken.getByTestId('mcp-last-error').waitFor();
  await broken.getByText('stderr').click();
  expect(await broken.getByTestId('mcp-last-error').textContent()).toContain('missing API key');

  await page.screenshot({ path: join(screenshots, 'settings-mcp.png'), fullPage: true });

  // Switch it off: the test button is disabled and the status says so.
  await broken.getByLabel('Broken local enabled').click();
  await page.waitForFunction(
    () =>
      document.querySelector('[data-slug="broken-local"] [data-testid="mcp-status"]')
        ?.textContent === 'disabled',
  );
  expect(await broken.getByTestId('mcp-test').isDisabled()).toBe(true);

  // Import the JSON other clients use.
  await page.getByText('Import an mcpServers JSON').click();
  await page.getByLabel('mcpServers JSON').fill(
    JSON.stringify({
      mcpServers: {
        imported: { url: http.url },
        nonsense: { args: ['no command'] },
      },
    }),
  );
  await page.getByTestId('mcp-import').click();
  await page.getByTestId('mcp-import-results').waitFor();
  const results = await page.getByTestId('mcp-import-results').textContent();
  expect(results).toContain('imported: added');
  expect(results).toContain('nonsense: refused');
  await row(page, 'imported').waitFor();

  // Delete.
  await row(page, 'imported').getByRole('button', { name: 'Delete' }).click();
  await row(page, 'imported').waitFor({ state: 'detached' });

  // Reload: the secret header is masked; it never reached the page.
  await page.reload();
  await row(page, 'remote-tools').getByRole('button', { name: 'Edit' }).click();
  expect(await page.getByLabel('Headers value 1').inputValue()).toBe('••••••');
  expect(await page.content()).not.toContain('page-secret-42');
  expect(watched.flatMap((watcher) => watcher.list())).toEqual([]);
}, 60_000);

test('another user sees a shared server read-only and may not add a stdio one', async () => {
  const shared = await app.fetch('/api/mcp/servers', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Team tools', type: 'http', url: http.url, shared: true }),
    user: admin,
  });
  expect(shared.status).toBe(201);
  const bob = await app.signUp();
  const page = await pageAs(bob, '/settings/mcp');
  const team = row(page, 'team-tools');
  await team.waitFor();
  expect(await team.textContent()).toContain('read-only');
  expect(await team.getByRole('button', { name: 'Delete' }).count()).toBe(0);

  await page.getByTestId('mcp-add').click();
  const form = page.getByTestId('mcp-form');
  await form.getByLabel('Name', { exact: true }).fill('My local');
  await form.getByLabel('Type', { exact: true }).selectOption('stdio');
  await form.getByLabel('Command', { exact: true }).fill('/bin/sh');
  await form.getByRole('button', { name: 'Add server' }).click();
  await form.getByTestId('mcp-form-problem').waitFor();
  expect(await form.getByTestId('mcp-form-problem').textContent()).toContain('only an admin');
}, 60_000);
