import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureWebBuild } from '@mango/web/build';

// This file's own build of the UI, removed after it.
const temp = mkdtempSync(join(tmpdir(), 'mango-web-build-'));
const directory = join(temp, 'dist');
afterAll(() => rmSync(temp, { recursive: true, force: true }));

import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

describeEachDatabase('the web UI on the API origin', (_kind, current) => {
  let app: TestApp;
  let user: TestUser;
  let script: string;
  beforeAll(async () => {
    const web = await ensureWebBuild({ directory });
    app = startTestApp(current().database, { webDirectory: web.directory });
    user = await app.signUp();
    const page = await (await app.fetch('/')).text();
    script = (page.match(/src="(\/assets\/[^"]+\.js)"/) as RegExpMatchArray)[1] as string;
  }, 60_000);
  afterAll(() => app.stop());

  test('/ is the page, with a policy that keeps it to its own origin', async () => {
    const response = await app.fetch('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    const page = await response.text();
    expect(page).toContain('<div id="app">');
    // Every URL is absolute, so deep links load the same files; none points elsewhere.
    expect(page).not.toMatch(/(src|href)="(\.|https?:)/);
  });

  test('a client-side route (a deep link or a reload) answers the page too', async () => {
    for (const path of ['/chats/abc', '/settings/tools', '/account']) {
      const response = await app.fetch(path);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="app">');
    }
  });

  test('hashed assets are served with their type and cached for good', async () => {
    const response = await app.fetch(script);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await response.text()).length).toBeGreaterThan(1000);
    const missing = await app.fetch('/assets/no-such-file.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toContain('text/html');
  });

  test('/api stays the API: an unknown route is a JSON 404, others need a user', async () => {
    const unknown = await app.fetch('/api/no-such-route', { user });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await app.fetch('/api/chats')).status).toBe(401);
    const posted = await app.fetch('/chats', { method: 'POST' });
    expect(posted.status).toBe(404);
  });

  test('the API reference page loads its scripts from this server', async () => {
    const page = await (await app.fetch('/api/docs', { user })).text();
    expect(page).not.toMatch(/(src|href)="https?:/);
    const sources = [...page.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map(
      (match) => match[1] as string,
    );
    expect(sources.sort()).toEqual([
      '/api/docs/start.js',
      '/api/docs/swagger-ui-bundle.js',
      '/api/docs/swagger-ui.css',
    ]);
    for (const source of sources) {
      const response = await app.fetch(source, { user });
      expect(response.status).toBe(200);
      expect((await response.text()).length).toBeGreaterThan(50);
    }
    expect((await app.fetch('/api/docs/other.js', { user })).status).toBe(404);
  });
});

describe('the web UI build', () => {
  test('a second call with unchanged sources does not build again', async () => {
    await ensureWebBuild({ directory });
    const again = await ensureWebBuild({ directory });
    expect(again.built).toBe(false);
    expect(again.durationMs).toBeLessThan(500);
  });
});
