/**
 * `npm start` under a supervisor (docs/operations.md#shutdown): a SIGTERM sent
 * to the npm process reaches the server, which shuts down gracefully and
 * frees its port. npm passes the signal to its child, the shell running the
 * script; without `exec` that shell would die and leave Bun running.
 */
import { afterAll, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess } from '../support/server-process';
import { createTempTree } from '../support/temp-tree';
import { waitUntil } from '../support/wait-until';

const REPOSITORY = join(import.meta.dir, '../../../..');
const tree = createTempTree('mango-npm-start-');
const leftovers: number[] = [];

afterAll(() => {
  for (const pid of leftovers) {
    try {
      // Only a server this test started (a pid can be reused once its process is gone).
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/api/src/index.ts')) continue;
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  tree.remove();
});

/** The pids below a process (Linux), to clean up should the test fail. */
function descendantsOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  const children = readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

test('SIGTERM to the npm start process stops the server gracefully and frees the port', async () => {
  const package_ = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  expect(package_.scripts.start).toStartWith('exec ');
  const server = await startServerProcess(
    // HOME in the temp tree too: npm keeps its logs there.
    { MANGO_DATA_DIR: join(tree.root, 'data'), HOME: tree.root },
    { command: ['npm', 'start'], cwd: REPOSITORY, timeoutMs: 30_000 },
  );
  leftovers.push(...descendantsOf(server.process.pid));
  expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  // The web UI is served beside the API (built at start when stale), deep links included.
  const page = await fetch(`${server.url}/chats/some-chat`);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await page.text()).toContain('<div id="app">');
  expect(server.lines.some((line) => /"msg":"web UI (built|up to date)"/.test(line))).toBe(true);
  const port = Number(new URL(server.url).port);

  await server.stop();
  const gone = await waitUntil(async () => {
    try {
      await fetch(`${server.url}/api/health`);
      return false;
    } catch {
      return true;
    }
  }, 10_000);
  expect(gone).toBe(true);
  expect(server.lines.some((line) => line.includes('"signal":"SIGTERM"'))).toBe(true);
  expect(await waitUntil(() => server.lines.some((line) => line.includes('"msg":"stopped"')))).toBe(
    true,
  );
  // The port can be bound again.
  const listener = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } });
  listener.stop(true);
}, 60_000);
