/**
 * Builds the web UI into static files with Bun's bundler: `index.html` plus
 * hashed scripts and styles under `assets/`, every URL absolute (`/assets/…`)
 * so a deep link such as `/chats/:id` loads them too.
 *
 * `ensureWebBuild()` is what the server calls at start-up: it hashes the UI's
 * sources (and the shared contracts it imports) and rebuilds only when the
 * hash differs from the one stored beside the last build, so an unchanged UI
 * costs a few milliseconds. A build goes to a fresh directory that replaces
 * the old one in one rename, so two processes starting at once never serve a
 * half-written UI. A failed build throws with the bundler's messages.
 *
 *   bun apps/web/build.ts          build if stale (prints what it did)
 *   bun apps/web/build.ts --force  build whatever the hash says
 */
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const WEB_ROOT = import.meta.dir;
/** Where the built UI goes (ignored by git). */
export const WEB_DIST = join(WEB_ROOT, 'dist');
const HASH_FILE = '.source-hash';

/** Everything the bundle is made from: the UI, the shared contracts, and the dependency versions. */
function sourceFiles(): string[] {
  const repo = join(WEB_ROOT, '../..');
  const under = (directory: string): string[] =>
    readdirSync(directory).flatMap((name) => {
      const full = join(directory, name);
      return statSync(full).isDirectory() ? under(full) : [full];
    });
  return [
    join(WEB_ROOT, 'index.html'),
    join(WEB_ROOT, 'package.json'),
    join(WEB_ROOT, 'build.ts'),
    join(repo, 'package-lock.json'),
    ...under(join(WEB_ROOT, 'src')),
    ...under(join(repo, 'apps/shared/src')),
  ]
    .filter((file) => existsSync(file))
    .sort();
}

export function webSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles()) {
    hash.update(relative(WEB_ROOT, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

export class WebBuildError extends Error {
  override name = 'WebBuildError';
}

/**
 * Builds the UI into `outdir` (emptied first). `readableNames` keeps the
 * identifiers unminified, for a profile whose functions must be recognisable.
 */
export async function buildWeb(
  outdir: string,
  options: { readableNames?: boolean } = {},
): Promise<{ files: string[] }> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(WEB_ROOT, 'index.html')],
    outdir,
    minify: options.readableNames ? { whitespace: true, syntax: true, identifiers: false } : true,
    publicPath: '/',
    target: 'browser',
    // The markdown renderer is a chunk of its own, loaded beside the first requests.
    splitting: true,
    naming: {
      entry: '[name].[ext]',
      chunk: 'assets/[name]-[hash].[ext]',
      asset: 'assets/[name]-[hash].[ext]',
    },
    define: { 'process.env.NODE_ENV': '"production"' },
    throw: false,
  });
  if (!result.success) {
    const messages = result.logs.map((log) => String(log)).join('\n');
    throw new WebBuildError(`The web UI failed to build:\n${messages}`);
  }
  const files = result.outputs.map((output) => relative(outdir, output.path)).sort();
  preloadChunks(outdir, files);
  return { files };
}

/**
 * Names in `index.html` the scripts the page imports later (the markdown renderer), as
 * modulepreloads, so they are fetched with the page rather than when first needed.
 */
export function preloadChunks(outdir: string, files: string[]): void {
  const page = join(outdir, 'index.html');
  const html = readFileSync(page, 'utf8');
  const links = files
    .filter((file) => file.startsWith('assets/') && file.endsWith('.js'))
    .filter((file) => !html.includes(`/${file}"`))
    .map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`)
    .join('');
  writeFileSync(page, html.replace('</head>', `${links}</head>`));
}

export interface EnsuredWebBuild {
  directory: string;
  /** Whether this call built it (false: the last build was current). */
  built: boolean;
  durationMs: number;
}

export interface EnsureWebBuildOptions {
  /** Where the build goes (default `WEB_DIST`). */
  directory?: string;
  /** Build whatever the stored hash says. */
  force?: boolean;
}

/** Builds the UI into its directory when its sources changed since the last build there. */
export async function ensureWebBuild(
  options: EnsureWebBuildOptions = {},
): Promise<EnsuredWebBuild> {
  const startedAt = performance.now();
  const directory = options.directory ?? WEB_DIST;
  const hash = webSourceHash();
  const stored = join(directory, HASH_FILE);
  const current = existsSync(stored) && readFileSync(stored, 'utf8') === hash;
  if (current && !options.force && existsSync(join(directory, 'index.html')))
    return { directory, built: false, durationMs: performance.now() - startedAt };
  mkdirSync(dirname(directory), { recursive: true });
  // Fails with the file system's code (EACCES, EROFS) when the place cannot be written.
  accessSync(dirname(directory), constants.W_OK);
  const staging = `${directory}.${process.pid}.${Date.now()}`;
  try {
    await buildWeb(staging);
    await Bun.write(join(staging, HASH_FILE), hash);
    const retired = `${staging}.old`;
    if (existsSync(directory)) renameSync(directory, retired);
    renameSync(staging, directory);
    rmSync(retired, { recursive: true, force: true });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process may have put a current build in place meanwhile.
    if (existsSync(stored) && readFileSync(stored, 'utf8') === hash)
      return { directory, built: false, durationMs: performance.now() - startedAt };
    throw error;
  }
  return { directory, built: true, durationMs: performance.now() - startedAt };
}

if (import.meta.main) {
  const outcome = await ensureWebBuild({ force: process.argv.includes('--force') });
  console.log(
    outcome.built
      ? `Built the web UI into ${relative(process.cwd(), outcome.directory)} in ${Math.round(outcome.durationMs)} ms.`
      : 'The web UI is up to date.',
  );
}
