/**
 * The API's description: `GET /api/openapi` (the OpenAPI document of every
 * route, the /api/auth routes included) and `GET /api/docs` (a reference page
 * that renders it). Routes describe themselves through their TypeBox schemas.
 */
import { toOpenAPISchema } from '@elysiajs/openapi';
import { type AnyElysia, Elysia } from 'elysia';
import { API_VERSION } from '../version';

export interface OpenApiRoutesOptions {
  /** The whole app, read at request time (it is complete by then). */
  getApp: () => AnyElysia;
  /** Paths of routes the app forwards elsewhere (better-auth's). */
  externalPaths: () => Promise<Record<string, unknown>>;
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>MangoStudio API</title>
  </head>
  <body>
    <script id="api-reference" data-url="openapi"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
  </body>
</html>
`;

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
    );
}
