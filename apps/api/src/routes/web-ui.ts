/**
 * The web UI on the API's origin: every path outside `/api` is the UI. The
 * built files (`apps/web/build.ts`) are read into memory once; a `GET` for a
 * file answers it (hashed files under `/assets/` are cached for a year), and
 * any other `GET` outside `/api` answers `index.html` so client-side routes
 * (`/chats/:id`, `/settings/tools`) survive a reload or a deep link. Everything
 * under `/api` — an unknown path included — goes to the API, which answers
 * JSON. Same origin means the session cookie works without CORS.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { getRequestContext } from '../request-context';
import type { RequestHandlerApp } from '../server';

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.ico': 'image/x-icon',
};

/**
 * What the UI's page may load: only its own origin (images from `/api/images`
 * and `data:`), no framing. Styles allow inline attributes (the highlighter
 * sets none, but the markdown renderer's tables may).
 */
export const WEB_UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    if (name.startsWith('.')) return [];
    const full = join(directory, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function loadFiles(directory: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const file of filesUnder(directory)) {
    const path = `/${relative(directory, file).split(sep).join('/')}`;
    const isPage = path.endsWith('.html');
    files.set(path, {
      body: new Uint8Array(readFileSync(file)),
      headers: {
        'content-type': MEDIA_TYPES[extname(file)] ?? 'application/octet-stream',
        'x-content-type-options': 'nosniff',
        'cache-control': path.startsWith('/assets/')
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
        ...(isPage
          ? {
              'content-security-policy': WEB_UI_CONTENT_SECURITY_POLICY,
              'referrer-policy': 'same-origin',
            }
          : {}),
      },
    });
  }
  return files;
}

/** Serves the built UI in `directory` beside `api`, which keeps every `/api` path. */
export function withWebUi(api: RequestHandlerApp, directory: string): RequestHandlerApp {
  const files = loadFiles(directory);
  const index = files.get('/index.html');
  if (!index) throw new Error(`${directory} holds no index.html: build the web UI first.`);
  return {
    handle(request) {
      const pathname = getRequestContext(request).path;
      const isApi = pathname === '/api' || pathname.startsWith('/api/');
      if (isApi || (request.method !== 'GET' && request.method !== 'HEAD'))
        return api.handle(request);
      const file = pathname === '/' ? index : files.get(pathname);
      // A missing hashed file is a 404, not the page (a script answered with HTML breaks silently).
      if (!file && pathname.startsWith('/assets/'))
        return Promise.resolve(new Response('Not found', { status: 404 }));
      const served = file ?? index;
      return Promise.resolve(
        new Response(request.method === 'HEAD' ? null : served.body, { headers: served.headers }),
      );
    },
  };
}
