/**
 * The API's description: `GET /api/openapi` (the OpenAPI document of every
 * route, the /api/auth routes included) and `GET /api/docs` (a reference page
 * that renders it). Routes describe themselves through their TypeBox schemas.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toOpenAPISchema } from '@elysiajs/openapi';
import { type AnyElysia, Elysia } from 'elysia';
import { ApiError } from '../errors';
import { API_VERSION } from '../version';

export interface OpenApiRoutesOptions {
  /** The whole app, read at request time (it is complete by then). */
  getApp: () => AnyElysia;
  /** Paths of routes the app forwards elsewhere (better-auth's). */
  externalPaths: () => Promise<Record<string, unknown>>;
}

/**
 * The reference page is Swagger UI, served from its npm package (`swagger-ui-dist`) under
 * `/api/docs/…`, so it works without any network but this server's.
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>MangoStudio API</title>
    <link rel="stylesheet" href="/api/docs/swagger-ui.css" />
  </head>
  <body>
    <p style="font-family: sans-serif; margin: 0.75rem 1rem"><a href="/">← Back to MangoStudio</a></p>
    <div id="swagger-ui" data-url="/api/openapi"></div>
    <script src="/api/docs/swagger-ui-bundle.js"></script>
    <script src="/api/docs/start.js"></script>
  </body>
</html>
`;

const DOCS_START = `SwaggerUIBundle({
  url: document.getElementById('swagger-ui').dataset.url,
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
});
`;

const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The package's files, read once on first use. */
const docsAssets = new Map<string, Uint8Array<ArrayBuffer>>();
function docsAsset(name: string): Uint8Array<ArrayBuffer> {
  let body = docsAssets.get(name);
  if (!body) {
    const directory = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir));
    body = new Uint8Array(readFileSync(join(directory, name)));
    docsAssets.set(name, body);
  }
  return body;
}

/**
 * Routes answering `text/event-stream` name that reply in their `detail` as
 * `x-event-stream` (the framework describes JSON replies only); it becomes the
 * operation's 200 response.
 */
function mergeEventStreamResponses(paths: Record<string, unknown>): void {
  for (const item of Object.values(paths) as Record<string, Record<string, unknown>>[])
    for (const operation of Object.values(item)) {
      const stream = operation['x-event-stream'];
      if (!stream) continue;
      delete operation['x-event-stream'];
      operation.responses = { 200: stream, ...(operation.responses as object | undefined) };
    }
}

export function createOpenApiRoutes(options: OpenApiRoutesOptions) {
  let document: Promise<Record<string, unknown>> | undefined;
  const build = async () => {
    const { paths, components } = toOpenAPISchema(
      options.getApp(),
      undefined,
      undefined,
      undefined,
      '3.1.0',
    );
    mergeEventStreamResponses(paths);
    return {
      openapi: '3.1.0',
      info: {
        title: 'MangoStudio API',
        version: API_VERSION,
        description:
          'Self-hosted AI chat and agent server. Every route except /api/health and /api/auth/* needs a signed-in user: the session cookie from POST /api/auth/sign-in/email, or an API key as "Authorization: Bearer <key>". Errors are { "error": { "code", "message" } }.',
      },
      components: {
        ...components,
        securitySchemes: {
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'better-auth.session_token' },
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (mango_…).' },
        },
      },
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      paths: { ...(await options.externalPaths()), ...paths },
    };
  };
  return new Elysia()
    .get(
      '/openapi',
      () => {
        document ??= build().catch((error: unknown) => {
          document = undefined;
          throw error;
        });
        return document;
      },
      { detail: { hide: true } },
    )
    .get(
      '/docs',
      () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
      { detail: { hide: true } },
    )
    .get(
      '/docs/start.js',
      () =>
        new Response(DOCS_START, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }),
      { detail: { hide: true } },
    )
    .get(
      '/docs/:asset',
      ({ params }) => {
        const type = DOCS_ASSETS[params.asset];
        if (!type) throw new ApiError('not_found', `No docs asset named "${params.asset}".`);
        return new Response(docsAsset(params.asset), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
        });
      },
      { detail: { hide: true } },
    );
}
