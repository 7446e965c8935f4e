/**
 * The web UI's chats in a real headless Chromium from the npm registry,
 * against the real server and the fake provider server
 * (tests/support/web-ui-harness.ts): an agent turn whose model reads a file
 * (and the inspector's payload equal to what the turn sends), a card going
 * running → succeeded, reload and two tabs mid-turn, a connection cut
 * mid-turn, sanitised markdown, Stop, a provider error with Retry, a refused
 * turn, a generated image, a failed call and the iteration limit; a chat
 * opened by its URL asking for what it shows once each; a long reply that
 * arrives at once, drawn whole and followed to its end. Every page
 * is watched for uncaught errors, console errors, failed requests and 5xx
 * answers.
 */
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { callTool, say } from '../../support/fake-provider';
import { waitUntil } from '../../support/wait-until';
import {
  card,
  expectValue,
  idle,
  messagesText,
  newChat,
  send,
  startRelay,
  useWebUiHarness,
} from '../../support/web-ui-harness';

const h = useWebUiHarness();

describe('the web UI in a browser: chats and turns', () => {
  test('an agent turn reads a file: the card succeeds with its result; the inspector showed its payload', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    await page.getByTestId('agent-mode').check();
    await page.getByTestId('working-directory').fill(h.workspace);
    await page.getByTestId('working-directory').press('Tab');
    await page.getByText(`You are working in the directory ${h.workspace}`).waitFor();
    await page.getByTestId('open-inspector').click();
    await page.getByTestId('capability-tool').first().waitFor();
    await page.getByRole('button', { name: /Show the payload/ }).click();
    const wire = JSON.parse(await page.getByTestId('wire-payload').innerText()) as {
      tools: unknown[];
    };
    await page.screenshot({ path: join(h.screenshots, 'inspector.png') });
    h.fake.enqueue(
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
    // The copy button puts the code, as written, on the clipboard.
    await h.context?.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.app.url });
    await page.locator('.code-block button.copy').first().click();
    await page.locator('.code-block button.copy', { hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      'const greeting = "hello";',
    );
    // The inspector's payload is what the turn sent the provider.
    const sent = h.fake.requests('openai')[0]?.body as { tools: unknown[] };
    expect(sent.tools).toEqual(wire.tools);
    await page.screenshot({ path: join(h.screenshots, 'chat.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(h.screenshots, 'chat-dark.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: join(h.screenshots, 'chat-360.png') });
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a running card succeeds; a reload and a second tab mid-turn show the same turn', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    const chatId = await newChat(page);
    h.fake.enqueue('openai', callTool('gate', { label: 'one' }), say('Released and done.'));
    await send(page, 'Open the gate.');
    await card(page, 'running').waitFor();
    expect(await page.getByTestId('tool-status').innerText()).toBe('running');
    await page.reload();
    await card(page, 'running').waitFor();
    const second = await h.openPage(`/chats/${chatId}`);
    await card(second, 'running').waitFor();
    await page.locator('[data-testid="tool-card"] summary').click();
    await page.getByTestId('tool-progress').waitFor();
    expect(await page.getByTestId('tool-progress').innerText()).toContain('Waiting for the test');
    expect(h.gates.length).toBe(1);
    h.gates[0]?.();
    for (const tab of [page, second]) {
      await card(tab, 'succeeded').waitFor();
      await tab.getByText('Released and done.').waitFor();
      await idle(tab);
    }
    const live = await messagesText(second);
    await page.reload();
    await idle(page);
    await card(page, 'succeeded').waitFor();
    // Messages are drawn in pieces, a few per frame: read them once all are in.
    await page.getByText('Released and done.').waitFor();
    await waitUntil(async () => (await messagesText(page)) === live);
    expect(await messagesText(page)).toBe(live);
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a tab already open picks up a turn another tab started when it is shown again', async () => {
    await h.signedInContext();
    const first = await h.openPage('/');
    const chatId = await newChat(first);
    h.fake.enqueue('openai', say('An earlier answer.'));
    await send(first, 'First question.');
    await first.getByText('An earlier answer.').waitFor();
    await idle(first);
    const second = await h.openPage(`/chats/${chatId}`);
    await second.getByText('An earlier answer.').waitFor();
    await idle(second);
    h.fake.enqueue('openai', callTool('gate', { label: 'two' }), say('Both tabs saw it.'));
    await send(first, 'Second question.');
    await card(first, 'running').waitFor();
    // The second tab is told it is visible again (as when its user switches back to it).
    await second.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await card(second, 'running').waitFor();
    h.gates[0]?.();
    for (const tab of [first, second]) {
      await tab.getByText('Both tabs saw it.').waitFor();
      await idle(tab);
    }
    const shown = await messagesText(first);
    await waitUntil(async () => (await messagesText(second)) === shown);
    expect(await messagesText(second)).toBe(shown);
    expect(await second.getByText('An earlier answer.').count()).toBe(1);
    // Shown again with nothing new: it stays as it is.
    await second.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await idle(second);
    expect(await messagesText(second)).toBe(await messagesText(first));
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('model output cannot run script: markdown is sanitised', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    h.fake.enqueue(
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
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a dropped connection mid-turn is followed again from the last event seen', async () => {
    await h.signedInContext();
    // The page talks to the server through a TCP relay this test can cut.
    const relay = await startRelay(new URL(h.app.url).port);
    try {
      const page = await h.openPage('/', relay.url);
      await newChat(page);
      h.fake.enqueue('openai', callTool('gate', { label: 'cut' }), say('Back again.'));
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
      h.gates[0]?.();
      await page.getByText('Back again.').waitFor();
      await idle(page);
      await card(page, 'succeeded').waitFor();
      expect(await page.getByText('Back again.').count()).toBe(1);
      const live = await messagesText(page);
      await page.reload();
      await page.getByText('Back again.').waitFor();
      await idle(page);
      await waitUntil(async () => (await messagesText(page)) === live);
      expect(await messagesText(page)).toBe(live);
      // The cut stream is the one failed request expected here.
      expect(h.problems().filter((problem) => !problem.includes('/turns'))).toEqual([]);
    } finally {
      await relay.close();
    }
  }, 30_000);

  test('Stop during a long call aborts the card and ends the turn', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    h.fake.enqueue('openai', callTool('gate', { label: 'never' }));
    await send(page, 'Wait forever.');
    await card(page, 'running').waitFor();
    await page.getByTestId('stop').click();
    await card(page, 'aborted').waitFor();
    await page.locator('[data-testid="turn-ending"][data-status="cancelled"]').waitFor();
    await idle(page);
    await page.getByTestId('send').waitFor();
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a retryable provider error offers Retry, which runs the turn again', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    h.fake.enqueue('openai', {
      fault: { type: 'http_error', status: 503, message: 'Overloaded.' },
    });
    await send(page, 'Hello?');
    const ending = page.locator('[data-testid="turn-ending"][data-status="error"]');
    await ending.waitFor();
    expect(await ending.innerText()).toContain('provider_unavailable');
    h.fake.enqueue('openai', say('Second time lucky.'));
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
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a generated image is shown under its card, served from /api/images', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    h.imagesFake.enqueue('openai', { kind: 'image' });
    h.fake.enqueue(
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
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a failed call shows its code and message; the iteration limit is a notice', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    await page.getByTestId('max-iterations').fill('1');
    h.fake.enqueue(
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
    expect(h.fake.requests('openai').at(-1)?.body.tool_choice).toBe('none');
    await idle(page);
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a chat opened by its URL asks for the session, the chat list, the chat and its messages once each', async () => {
    await h.signedInContext();
    const first = await h.openPage('/');
    const chatId = await newChat(first);
    await first.close();
    const context = h.context;
    if (!context) throw new Error('no context');
    const asked = new Map<string, number>();
    context.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/')) asked.set(path, (asked.get(path) ?? 0) + 1);
    });
    const page = await h.openPage(`/chats/${chatId}`);
    await idle(page);
    await expectValue(page, 'model-picker', 'openai:gpt-5');
    // The session's answer comes from the page's preload, taken by the app's own read.
    expect(Object.fromEntries(asked)).toEqual({
      '/api/auth/get-session': 1,
      '/api/chats': 1,
      [`/api/chats/${chatId}`]: 1,
      [`/api/chats/${chatId}/messages`]: 1,
      '/api/models': 1,
    });
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('a long reply arriving at once is drawn whole, in order, and followed to its end', async () => {
    await h.signedInContext();
    const page = await h.openPage('/');
    await newChat(page);
    const paragraphs = Array.from(
      { length: 400 },
      (_, index) => `Paragraph **${index}** of a long reply, with \`code\` in it.`,
    );
    const reply = [
      ...paragraphs.slice(0, 200),
      '```ts\nconst middle = true;\n```',
      '1. one\n\n2. two',
      ...paragraphs.slice(200),
      'The very end.',
    ].join('\n\n');
    // One fragment: the whole reply reaches the page in one burst.
    h.fake.enqueue('openai', { ...say(reply), fragmentSize: reply.length });
    await send(page, 'A long answer, please.');
    await page.getByText('The very end.').waitFor();
    await idle(page);
    const markdown = page.locator('.message.assistant .markdown');
    // textContent: innerText leaves out the blocks scrolled away (content-visibility: auto).
    const text = (await markdown.textContent()) ?? '';
    let from = 0;
    for (const index of [0, 1, 199, 200, 399]) {
      const at = text.indexOf(`Paragraph ${index} of a long reply`, from);
      expect(at).toBeGreaterThanOrEqual(from);
      from = at;
    }
    expect(await markdown.locator('strong').count()).toBe(400);
    expect(await markdown.locator('.code-block .hljs-keyword').first().textContent()).toBe('const');
    // The loose list is one list, though a blank line parts its items.
    expect(await markdown.locator('ol').count()).toBe(1);
    expect(await markdown.locator('ol > li').count()).toBe(2);
    // Scrolled to the newest content, though it was drawn over several passes.
    await page.waitForFunction(() => {
      const scroller = document.querySelector('.scroller') as HTMLElement;
      return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
    });
    expect(await page.getByText('Jump to latest').count()).toBe(0);
    expect(h.problems()).toEqual([]);
  }, 30_000);

  test('the chat list shows a page at a time; "Older chats…" brings the rest', async () => {
    await h.signedInContext();
    const context = h.context;
    if (!context) throw new Error('no context');
    for (let index = 0; index < 53; index++) {
      const created = await context.request.post(`${h.app.url}/api/chats`, {
        data: { title: `Chat number ${index}` },
      });
      expect(created.status()).toBe(201);
    }
    const page = await h.openPage('/');
    await page.getByText('Chat number 52').waitFor();
    expect(await page.getByTestId('chat-link').count()).toBe(50);
    await page.getByTestId('more-chats').click();
    await page.getByText('Chat number 0', { exact: true }).waitFor();
    expect(await page.getByTestId('chat-link').count()).toBe(53);
    expect(await page.getByTestId('more-chats').count()).toBe(0);
    expect(h.problems()).toEqual([]);
  }, 30_000);
});
