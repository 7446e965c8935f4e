/**
 * The web UI's browser tests' shared set-up (test support): the UI built into
 * the file's temp directory, the real server (SQLite) with the fake provider
 * server and the fake image server, a `gate` tool the test holds open, one
 * headless Chromium (tests/support/browser.ts), a fresh browser context per
 * test, and helpers that read the page as a person would. Call
 * `useWebUiHarness()` at the top level of a test file.
 *
 * Screenshots go to `MANGO_UI_SCREENSHOT_DIR` when set (for a person to look
 * at), else into the file's temp directory.
 */
import { afterAll, beforeAll, beforeEach } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWebBuild } from '@mango/web/build';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createImageModelRegistry } from '../../src/services/providers/image-model-registry';
import { createProviderRegistry } from '../../src/services/providers/provider-registry';
import type { RegisteredTool } from '../../src/services/tools';
import { closeBrowser, launchBrowser, type PageProblems, watchPage } from './browser';
import { type FakeImageServer, startFakeImageServer } from './fake-images/fake-image-server';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider';
import { startTestApp, type TestApp } from './test-app';
import { createTestDatabase, type TestDatabase } from './test-databases';

/** A TCP relay to the server on `port`; `cut()` drops every connection through it at once. */
export async function startRelay(port: string) {
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

export async function expectValue(page: Page, testId: string, value: string): Promise<void> {
  await page.waitForFunction(
    ([id, expected]) =>
      (document.querySelector(`[data-testid="${id}"]`) as HTMLInputElement | null)?.value ===
      expected,
    [testId, value],
  );
}

/** Opens a new chat from the chat list; resolves its id once it shows the default model. */
export async function newChat(page: Page): Promise<string> {
  await page.getByTestId('new-chat').first().click();
  await page.waitForURL(/\/chats\/[^/]+$/);
  await page.getByTestId('chat').waitFor();
  await expectValue(page, 'model-picker', 'openai:gpt-5');
  return new URL(page.url()).pathname.split('/').pop() as string;
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('composer').press('Enter');
}

export const card = (page: Page, status: string) =>
  page.locator(`[data-testid="tool-card"][data-status="${status}"]`);

export async function idle(page: Page): Promise<void> {
  await page.locator('[data-testid="chat"][data-state="idle"]').waitFor();
}

export const messagesText = (page: Page) => page.locator('.messages').innerText();

export interface WebUiHarness {
  readonly app: TestApp;
  readonly fake: FakeProviderServer;
  readonly imagesFake: FakeImageServer;
  readonly testDatabase: TestDatabase;
  /** The test's browser context (undefined until the test makes one). */
  context: BrowserContext | undefined;
  /** Release functions of the `gate` tool's running calls, in the order they started. */
  readonly gates: (() => void)[];
  readonly screenshots: string;
  /** A directory holding `notes.md`, for agent-mode chats. */
  readonly workspace: string;
  readonly webDirectory: string;
  /** A fresh context; waits give up well before a test's timeout, so a failure says what it waited for. */
  newContext(): Promise<BrowserContext>;
  /** A fresh context signed in as a new user (signed up through the API). */
  signedInContext(): Promise<void>;
  /** A watched page of the test's context, opened at `path` (of `origin`, the server by default). */
  openPage(path?: string, origin?: string): Promise<Page>;
  /** What the watched pages noticed went wrong. */
  problems(): string[];
}

export function useWebUiHarness(): WebUiHarness {
  const temp = mkdtempSync(join(tmpdir(), 'mango-web-ui-'));
  const watched: PageProblems[] = [];
  const gates: (() => void)[] = [];
  let app: TestApp | undefined;
  let fake: FakeProviderServer | undefined;
  let imagesFake: FakeImageServer | undefined;
  let testDatabase: TestDatabase | undefined;
  let browser: Browser | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('The web UI harness runs from beforeAll to afterAll.');
    return value;
  };

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

  const harness: WebUiHarness = {
    get app() {
      return ready(app);
    },
    get fake() {
      return ready(fake);
    },
    get imagesFake() {
      return ready(imagesFake);
    },
    get testDatabase() {
      return ready(testDatabase);
    },
    context: undefined,
    gates,
    screenshots: process.env.MANGO_UI_SCREENSHOT_DIR ?? join(temp, 'screenshots'),
    workspace: join(temp, 'project'),
    webDirectory: join(temp, 'web'),
    async newContext() {
      const fresh = await ready(browser).newContext({ viewport: { width: 1280, height: 800 } });
      fresh.setDefaultTimeout(10_000);
      return fresh;
    },
    async signedInContext() {
      harness.context = await harness.newContext();
      const user = await harness.app.signUp();
      // Everyone after the first account is a user: their file tools reach only granted roots.
      await harness.app.services.roots.replace(user.id, [harness.workspace]);
      await harness.context.addCookies(
        user.cookie.split('; ').map((pair) => {
          const [name, ...rest] = pair.split('=');
          return { name: name as string, value: rest.join('='), url: harness.app.url };
        }),
      );
    },
    async openPage(path = '/', origin = harness.app.url) {
      const context = harness.context;
      if (!context) throw new Error('No browser context: call signedInContext first.');
      const page = await context.newPage();
      watched.push(watchPage(page));
      page.on('dialog', (dialog) => void dialog.accept());
      await page.goto(`${origin}${path}`);
      return page;
    },
    problems: () => watched.flatMap((watcher) => watcher.list()),
  };

  beforeAll(async () => {
    mkdirSync(harness.screenshots, { recursive: true });
    mkdirSync(harness.workspace, { recursive: true });
    writeFileSync(join(harness.workspace, 'notes.md'), '# Notes\n\nhello from the notes\n');
    const [web, started, startedImages, database, launched] = await Promise.all([
      ensureWebBuild({ directory: harness.webDirectory }),
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

  beforeEach(async () => {
    await harness.context?.close();
    harness.context = undefined;
    watched.length = 0;
    for (const release of gates.splice(0)) release();
  });

  afterAll(async () => {
    for (const release of gates.splice(0)) release();
    await harness.context?.close();
    await app?.stop();
    await closeBrowser();
    await fake?.close();
    await imagesFake?.close();
    await testDatabase?.dispose();
    rmSync(temp, { recursive: true, force: true });
  });

  return harness;
}
