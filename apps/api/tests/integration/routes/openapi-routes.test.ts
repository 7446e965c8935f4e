import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestApp, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

describeEachDatabase('OpenAPI document and docs page', (_kind, current) => {
  let app: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    app = startTestApp(current().database);
    user = await app.signUp();
  }, 30_000);
  afterAll(() => app.stop());

  test('GET /api/openapi describes every route, the /api/auth routes included', async () => {
    const response = await app.fetch('/api/openapi', { user });
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      info: { title: string };
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    };
    expect(document.openapi).toStartWith('3.');
    expect(document.info.title).toBe('MangoStudio API');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/health',
        '/api/settings/tools',
        '/api/settings/tools/{toolName}',
        '/api/auth/sign-up/email',
        '/api/auth/sign-in/email',
      ]),
    );
    const put = document.paths['/api/settings/tools/{toolName}']?.put;
    expect(Object.keys(put?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '404',
      '413',
      '415',
      '422',
    ]);
    // The chat routes declare their error replies like the settings routes, each with the one error body.
    const responsesOf = (path: string, method: string) =>
      Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort();
    expect(responsesOf('/api/chats/{id}', 'get')).toEqual(['200', '401', '404']);
    expect(responsesOf('/api/chats', 'post')).toEqual(['201', '400', '401', '413', '415', '422']);
    expect(responsesOf('/api/chats/{id}/turns', 'post')).toEqual(
      expect.arrayContaining(['400', '401', '404', '409', '413', '415', '422']),
    );
    expect(responsesOf('/api/chats/{id}/turns/cancel', 'post')).toEqual(['200', '401', '404']);
    expect(JSON.stringify(document.paths['/api/chats/{id}']?.get?.responses?.['404'])).toContain(
      'ErrorResponse',
    );
    // Internal helpers are not documented as routes.
    expect(document.paths['/api/openapi']).toBeUndefined();
    expect(document.paths['/api/docs']).toBeUndefined();
  });

  test('GET /api/docs is a page that renders the document', async () => {
    const response = await app.fetch('/api/docs', { user });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('data-url="/api/openapi"');
  });

  test('both need a signed-in user', async () => {
    expect((await app.fetch('/api/openapi')).status).toBe(401);
    expect((await app.fetch('/api/docs')).status).toBe(401);
  });
});
