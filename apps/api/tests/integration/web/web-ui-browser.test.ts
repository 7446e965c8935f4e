/**
 * The web UI in a real headless Chromium (from the npm registry, see
 * tests/support/browser.ts) against the real server and the fake provider
 * server: accounts and API keys, an agent turn whose model reads a file, a
 * tool card going running → succeeded, reload and a second tab mid-turn, Stop,
 * a provider error with Retry, a refused setting shown at its field, and the
 * inspector's payload compared with what the turn then sends. Every page is
 * watched for uncaught errors, console errors, failed requests and 5xx answers.
 *
 * Screenshots of the main screens go to `MANGO_UI_SCREENSHOT_DIR` when set
 * (for a person to look at), else into this file's temp directory.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWebBuild } from '@mango/web/build';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createImageModelRegistry } from '../../../src/services/providers/image-model-registry';
import { createProviderRegistry } from '../../../src/services/providers/provider-registry';
import type { RegisteredTool } from '../../../src/services/tools';
import { closeBrowser, launchBrowser, type PageProblems, watchPage } from '../../support/browser';
import {
  type FakeImageServer,
  startFakeImageServer,
} from '../../support/fake-images/fake-image-server';
import {
  callTool,
  type FakeProviderServer,
  say,
  startFakeProviderServer,
} from '../../support/fake-provider';
import { startTestApp, type TestApp } from '../../support/test-app';
import { createTestDatabase, type TestDatabase } from '../../support/test-databases';

const temp = mkdtempSync(join(tmpdir(), 'mango-web-ui-'));
const screenshots = process.env.MANGO_UI_SCREENSHOT_DIR ?? join(temp, 'screenshots');
const workspace = join(temp, 'project');
const webDirectory = join(temp, 'web');

let fake: FakeProviderServer;
let imagesFake: FakeImageServer;
let testDatabase: TestDatabase;
let app: TestApp;
let browser: Browser;
/** Release functions of the `gate` tool's running calls. */
let gates: (() => void)[] = [];

/** A tool the test holds open until it releases it (or the turn is cancelled). */
const gateTool: RegisteredTool = {
  definition: {
    name: 'gate',
    description: 'Waits until the test releases it (or the turn is cancelled).',
    parameters: {
      type: 'object',
      properties: { label: { type: 'string' } },
      additionalProperties: false,
    },
  },
  settings: {
    title: 'Gate',
    description: 'A tool the test holds open.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: (_args, context) =>
    new Promise((resolve, reject) => {
      context.emit?.({ type: 'waiting', message: 'Waiting for the test to release it.' });
      gates.push(() => resolve({ released: true }));
      context.signal.addEventListener('abort', () => reject(context.signal.reason));
    }),
};

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'notes.md'), '# Notes\n\nhello from the notes\n');
  const [web, started, startedImages, database, launched] = await Promise.all([
    ensureWebBuild({ directory: webDirectory }),
    startFakeProviderServer(),
    startFakeImageServer(),
    createTestDatabase('sqlite'),
    launchBrowser(),
  ]);
  fake = started;
  imagesFake = startedImages;
  testDatabase = database;
  browser = launched;
  fake.serveModels('openai', { models: [{ id: 'gpt-5', displayName: 'GPT-5' }] });
  app = startTestApp(testDatabase.database, {
    providers: createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'test-key', maxRetries: 0 },
    }),
    imageModels: createImageModelRegistry(
      [{ name: 'openai:gpt-image-1', provider: 'openai', modelId: 'gpt-image-1' }],
      { openai: { apiKey: 'sk-test', baseURL: imagesFake.baseUrl('openai') } },
    ),
    extraTools: [gateTool],
    webDirectory: web.directory,
  });
}, 120_000);

afterAll(async () => {
  for (const release of gates) release();
  await app?.stop();
  await closeBrowser();
  await fake?.close();
  await imagesFake?.close();
  await testDatabase?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

let context: BrowserContext | undefined;
const watched: PageProblems[] = [];

beforeEach(async () => {
  await context?.close();
  context = undefined;
  watched.length = 0;
  gates = [];
});

async function openPage(path = '/', origin = app.url): Promise<Page> {
  if (!context) throw new Error('No browser context: call signedInContext first.');
  const page = await context.newPage();
  watched.push(watchPage(page));
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${origin}${path}`);
  return page;
}

/** A TCP relay to the server on `port`; `cut()` drops every connection through it at once. */
async function startRelay(port: string) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const forget = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${relayPort}`,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A fresh context; waits give up well before the test's own timeout, so a failure says what it waited for. */
async function newContext(): Promise<BrowserContext> {
  const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  fresh.setDefaultTimeout(10_000);
  return fresh;
}

/** A fresh context signed in as a new user (signed up through the API). */
async function signedInContext(): Promise<void> {
  context = await newContext();
  const user = await app.signUp();
  await context.addCookies(
    user.cookie.split('; ').map((pair) => {
      const [name, ...rest] = pair.split('=');
      return { name: name as string, value: rest.join('='), url: app.url };
    }),
  );
}

function problems(): string[] {
  return watched.flatMap((watcher) => watcher.list());
}

async function newChat(page: Page): Promise<string> {
  await page.getByTestId('new-chat').first().click();
  await page.waitForURL(/\/chats\/[^/]+$/);
  await page.getByTestId('chat').waitFor();
  await expectValue(page, 'model-picker', 'openai:gpt-5');
  return new URL(page.url()).pathname.split('/').pop() as string;
}

async function expectValue(page: Page, testId: string, value: string): Promise<void> {
  await page.waitForFunction(
    ([id, expected]) =>
      (document.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null)?.value ===
      expected,
    [testId, value],
  );
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('composer').press('Enter');
}

const card = (page: Page, status: string) =>
  page.locator(`[data-testid="tool-card"][data-status="${status}"]`);

async function idle(page: Page): Promise<void> {
  await page.locator('[data-testid="chat"][data-state="idle"]').waitFor();
}

const messagesText = (page: Page) => page.locator('.messages').innerText();

describe('the web UI in a browser', () => {
  test('first sign-up becomes the admin; API keys are shown once, listed and revoked', async () => {
    context = await newContext();
    const page = await openPage('/');
    await page.getByTestId('sign-up-tab').click();
    expect(await page.getByTestId('first-admin-note').innerText()).toContain(
      'becomes its administrator',
    );
    await page.screenshot({ path: join(screenshots, 'sign-up.png') });
    await page.getByLabel('Name').fill('Ana');
    await page.getByTestId('email').fill('ana@example.test');
    await page.getByTestId('password').fill('a long passphrase');
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('account-link').click();
    await page.getByTestId('admin-badge').waitFor();
    await page.getByTestId('key-name').fill('my script');
    await page.getByTestId('create-key').click();
    const key = (await page.locator('[data-testid="new-key"] code').innerText()).trim();
    expect(key).toStartWith('mango_');
    await page.getByTestId('key-row').first().waitFor();
    expect(await page.getByTestId('key-row').count()).toBe(1);
    const listed = await app.fetch('/api/settings/tools', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(listed.status).toBe(200);
    await page.screenshot({ path: join(screenshots, 'account.png') });
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No keys yet.').waitFor();
    await page.getByTestId('sign-out').click();
    await page.getByTestId('auth-form').waitFor();
    // And back in with the password.
    await page.getByTestId('email').fill('ana@example.test');
    await page.getByTestId('password').fill('a long passphrase');
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('new-chat').first().waitFor();
    expect(problems()).toEqual([]);
  }, 30_000);

  test('on a server with sign-up closed, sign-up says why, and an invite link opens it', async () => {
    const closed = startTestApp(testDatabase.database, {
      allowSignup: false,
      webDirectory: webDirectory,
    });
    try {
      // The database already has its first account (another test's, or made here).
      await app.signUp();
      context = await newContext();
      const page = await openPage('/', closed.url);
      await page.getByTestId('sign-up-tab').click();
      await page.getByTestId('email').fill('bea@example.test');
      await page.getByTestId('password').fill('another passphrase');
      await page.getByTestId('auth-submit').click();
      expect(await page.getByTestId('auth-problem').innerText()).toContain('Sign-up is closed');
      const { token } = await app.auth.invites.create({ createdBy: null });
      await page.goto(`${closed.url}/?invite=${encodeURIComponent(token)}`);
      expect(await page.getByTestId('first-admin-note').innerText()).toContain('with an invite');
      await page.getByTestId('email').fill('bea@example.test');
      await page.getByTestId('password').fill('another passphrase');
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('new-chat').first().waitFor();
      expect(await page.getByTestId('admin-badge').count()).toBe(0);
      expect(problems()).toEqual([]);
    } finally {
      await closed.stop();
    }
  }, 30_000);

  test('the API reference the top bar links to renders from this server alone', async () => {
    await signedInContext();
    const page = await openPage('/');
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    expect(await page.getByRole('link', { name: 'API docs' }).getAttribute('href')).toBe(
      '/api/docs',
    );
    await page.goto(`${app.url}/api/docs`);
    await page.locator('.swagger-ui .info .title').getByText('MangoStudio API').waitFor({
      timeout: 20_000,
    });
    await page.locator('.opblock-summary-path').first().waitFor();
    expect([...hosts]).toEqual([new URL(app.url).host]);
    await page.screenshot({ path: join(screenshots, 'api-docs.png') });
    expect(problems()).toEqual([]);
  }, 30_000);

  test('an agent turn reads a file: the card succeeds with its result; the inspector showed its payload', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    await page.getByTestId('agent-mode').check();
    await page.getByTestId('working-directory').fill(workspace);
    await page.getByTestId('working-directory').press('Tab');
    await page.getByText(`You are working in the directory ${workspace}`).waitFor();
    await page.getByTestId('open-inspector').click();
    await page.getByTestId('capability-tool').first().waitFor();
    await page.getByRole('button', { name: /Show the payload/ }).click();
    const wire = JSON.parse(await page.getByTestId('wire-payload').innerText()) as {
      tools: unknown[];
    };
    await page.screenshot({ path: join(screenshots, 'inspector.png') });
    fake.enqueue(
      'openai',
      callTool('read_file', { path: 'notes.md' }),
      say('The notes say **hello**.\n\n```ts\nconst greeting = "hello";\n```\n'),
    );
    await send(page, 'What do my notes say?');
    await card(page, 'succeeded').waitFor();
    await idle(page);
    await page.locator('[data-testid="tool-card"] summary').click();
    expect(await page.locator('.tool-body .result').innerText()).toContain('hello from the notes');
    expect(await page.getByTestId('tool-duration').innerText()).toMatch(/\d+(\.\d+)? (ms|s)/);
    // Markdown, sanitised and highlighted, with a copy button.
    expect(await page.locator('.markdown strong').innerText()).toBe('hello');
    expect(await page.locator('.code-block .hljs-keyword').first().innerText()).toBe('const');
    await page.locator('.code-block button.copy').waitFor();
    // The inspector's payload is what the turn sent the provider.
    const sent = fake.requests('openai')[0]?.body as { tools: unknown[] };
    expect(sent.tools).toEqual(wire.tools);
    await page.screenshot({ path: join(screenshots, 'chat.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(screenshots, 'chat-dark.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: join(screenshots, 'chat-360.png') });
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a running card succeeds; a reload and a second tab mid-turn show the same turn', async () => {
    await signedInContext();
    const page = await openPage('/');
    const chatId = await newChat(page);
    fake.enqueue('openai', callTool('gate', { label: 'one' }), say('Released and done.'));
    await send(page, 'Open the gate.');
    await card(page, 'running').waitFor();
    expect(await page.getByTestId('tool-status').innerText()).toBe('running');
    await page.reload();
    await card(page, 'running').waitFor();
    const second = await openPage(`/chats/${chatId}`);
    await card(second, 'running').waitFor();
    await page.locator('[data-testid="tool-card"] summary').click();
    await page.getByTestId('tool-progress').waitFor();
    expect(await page.getByTestId('tool-progress').innerText()).toContain('Waiting for the test');
    expect(gates.length).toBe(1);
    gates[0]?.();
    for (const tab of [page, second]) {
      await card(tab, 'succeeded').waitFor();
      await tab.getByText('Released and done.').waitFor();
      await idle(tab);
    }
    const live = await messagesText(second);
    await page.reload();
    await idle(page);
    await card(page, 'succeeded').waitFor();
    expect(await messagesText(page)).toBe(live);
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a tab already open picks up a turn another tab started when it is shown again', async () => {
    await signedInContext();
    const first = await openPage('/');
    const chatId = await newChat(first);
    fake.enqueue('openai', say('An earlier answer.'));
    await send(first, 'First question.');
    await first.getByText('An earlier answer.').waitFor();
    await idle(first);
    const second = await openPage(`/chats/${chatId}`);
    await second.getByText('An earlier answer.').waitFor();
    await idle(second);
    fake.enqueue('openai', callTool('gate', { label: 'two' }), say('Both tabs saw it.'));
    await send(first, 'Second question.');
    await card(first, 'running').waitFor();
    // The second tab is told it is visible again (as when its user switches back to it).
    await second.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await card(second, 'running').waitFor();
    gates[0]?.();
    for (const tab of [first, second]) {
      await tab.getByText('Both tabs saw it.').waitFor();
      await idle(tab);
    }
    expect(await messagesText(second)).toBe(await messagesText(first));
    expect(await second.getByText('An earlier answer.').count()).toBe(1);
    // Shown again with nothing new: it stays as it is.
    await second.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await idle(second);
    expect(await messagesText(second)).toBe(await messagesText(first));
    expect(problems()).toEqual([]);
  }, 30_000);

  test('model output cannot run script: markdown is sanitised', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    fake.enqueue(
      'openai',
      say(
        'Look: <img src="/nothing.png" onerror="window.xss = 1"> <script>window.xss = 2</script>' +
          ' [a link](javascript:window.xss=3) <a href="https://example.test/" onclick="window.xss=4">out</a>',
      ),
    );
    await send(page, 'Say something dangerous.');
    await page.getByText('Look:').waitFor();
    await idle(page);
    const markdown = page.locator('.message.assistant .markdown');
    expect(await markdown.locator('script').count()).toBe(0);
    expect(await markdown.locator('[onerror], [onclick]').count()).toBe(0);
    const hrefs = await markdown
      .locator('a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.some((href) => href?.startsWith('javascript:'))).toBe(false);
    expect(await markdown.locator('a[href="https://example.test/"]').getAttribute('rel')).toBe(
      'noopener noreferrer',
    );
    await page.getByText('a link').click({ trial: true });
    expect(await page.evaluate(() => (window as unknown as { xss?: number }).xss)).toBeUndefined();
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a dropped connection mid-turn is followed again from the last event seen', async () => {
    await signedInContext();
    // The page talks to the server through a TCP relay this test can cut.
    const relay = await startRelay(new URL(app.url).port);
    try {
      const page = await openPage('/', relay.url);
      await newChat(page);
      fake.enqueue('openai', callTool('gate', { label: 'cut' }), say('Back again.'));
      await send(page, 'Hold on.');
      await card(page, 'running').waitFor();
      const resumed = page.waitForRequest(
        (request) =>
          request.url().endsWith('/turns/current/events') &&
          /^turn_[^:]+:\d+$/.test(request.headers()['last-event-id'] ?? ''),
      );
      relay.cut();
      await resumed;
      await card(page, 'running').waitFor();
      gates[0]?.();
      await page.getByText('Back again.').waitFor();
      await idle(page);
      await card(page, 'succeeded').waitFor();
      expect(await page.getByText('Back again.').count()).toBe(1);
      const live = await messagesText(page);
      await page.reload();
      await page.getByText('Back again.').waitFor();
      await idle(page);
      expect(await messagesText(page)).toBe(live);
      // The cut stream is the one failed request expected here.
      expect(problems().filter((problem) => !problem.includes('/turns'))).toEqual([]);
    } finally {
      await relay.close();
    }
  }, 30_000);

  test('Stop during a long call aborts the card and ends the turn', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    fake.enqueue('openai', callTool('gate', { label: 'never' }));
    await send(page, 'Wait forever.');
    await card(page, 'running').waitFor();
    await page.getByTestId('stop').click();
    await card(page, 'aborted').waitFor();
    await page.locator('[data-testid="turn-ending"][data-status="cancelled"]').waitFor();
    await idle(page);
    await page.getByTestId('send').waitFor();
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a retryable provider error offers Retry, which runs the turn again', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    fake.enqueue('openai', { fault: { type: 'http_error', status: 503, message: 'Overloaded.' } });
    await send(page, 'Hello?');
    const ending = page.locator('[data-testid="turn-ending"][data-status="error"]');
    await ending.waitFor();
    expect(await ending.innerText()).toContain('provider_unavailable');
    fake.enqueue('openai', say('Second time lucky.'));
    await page.getByTestId('retry').click();
    await page.getByText('Second time lucky.').waitFor();
    await idle(page);
    // A turn refused before it starts (here: no model) says why, and the chat stays as it was.
    const before = await messagesText(page);
    await page.getByTestId('model-picker').selectOption('');
    await expectValue(page, 'model-picker', '');
    await send(page, 'And now?');
    expect(await page.getByTestId('chat-problem').innerText()).toContain('model');
    expect(await messagesText(page)).toBe(before);
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a generated image is shown under its card, served from /api/images', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    imagesFake.enqueue('openai', { kind: 'image' });
    fake.enqueue(
      'openai',
      callTool('generate_image', { prompt: 'a mango on a desk', count: 1 }),
      say('Here is your mango.'),
    );
    await send(page, 'Draw a mango.');
    await card(page, 'succeeded').waitFor();
    await page.getByText('Here is your mango.').waitFor();
    const image = page.locator('.tool-images img');
    await image.waitFor();
    await page.waitForFunction(
      () => (document.querySelector('.tool-images img') as HTMLImageElement | null)?.naturalWidth,
    );
    expect(await image.getAttribute('src')).toStartWith('/api/images/');
    await idle(page);
    expect(problems()).toEqual([]);
  }, 30_000);

  test('a failed call shows its code and message; the iteration limit is a notice', async () => {
    await signedInContext();
    const page = await openPage('/');
    await newChat(page);
    await page.getByTestId('max-iterations').fill('1');
    fake.enqueue(
      'openai',
      callTool('read_file', { path: '/no/such/file.md' }),
      say('I could not read it.'),
    );
    await send(page, 'Read a missing file.');
    await card(page, 'failed').waitFor();
    await page.locator('[data-testid="turn-ending"][data-status="iteration_limit"]').waitFor();
    expect(await page.getByTestId('turn-ending').innerText()).toContain('Iteration limit reached');
    await page.locator('[data-testid="tool-card"] summary').click();
    const error = page.locator('.tool-body .tool-error');
    expect(await error.locator('code').innerText()).toMatch(/^[a-z_]+$/);
    expect((await error.innerText()).length).toBeGreaterThan(20);
    expect(fake.requests('openai').at(-1)?.body.tool_choice).toBe('none');
    await idle(page);
    expect(problems()).toEqual([]);
  }, 30_000);

  test('Settings → Tools shows a refused value at its field, and saves a good one', async () => {
    await signedInContext();
    const page = await openPage('/settings/tools');
    const row = page.locator('[data-testid="tool-row"][data-tool="list_directory"]');
    await row.locator('summary').click();
    const field = row.locator('[data-testid="setting-field"][data-name="maxEntries"]');
    await field.locator('input').fill('0');
    await row.getByTestId('save-settings').click();
    const error = field.getByTestId('field-error');
    await error.waitFor();
    expect(await error.innerText()).toContain('maxEntries');
    await page.screenshot({ path: join(screenshots, 'settings-tools.png'), fullPage: true });
    await field.locator('input').fill('50');
    await row.getByTestId('save-settings').click();
    await row.getByText('Saved.').waitFor();
    expect(await field.getByTestId('field-error').count()).toBe(0);
    // A tool that cannot be switched off has its switch disabled; the others can be.
    const toggles = await page
      .getByTestId('tool-enabled')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).disabled));
    expect(toggles.length).toBeGreaterThan(5);
    expect(problems()).toEqual([]);
  }, 30_000);
});
