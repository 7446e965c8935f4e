/**
 * Starting a child process with a time limit (the server's and the fake
 * provider's, as the benches start them) leaves no timer behind: a script that
 * starts both with a 10-minute limit, then stops them, ends at once rather
 * than when the limit would have run out.
 */
import { afterEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { raceTimeout } from '../../../src/race-timeout';

const SUPPORT = join(import.meta.dir, '../../support');
const directories: string[] = [];
const children: Bun.Subprocess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

test('a script that started and stopped the server and the fake provider exits without waiting for their start limits', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'mango-start-timers-'));
  directories.push(directory);
  const entry = join(directory, 'entry.ts');
  // Ready for SIGTERM, prints its URL as the server's log does, then waits.
  writeFileSync(
    entry,
    `process.on('SIGTERM', () => process.exit(0));
console.log(JSON.stringify({ url: 'http://127.0.0.1:9' }));
setInterval(() => {}, 1000);
`,
  );
  const script = join(directory, 'start-and-stop.ts');
  writeFileSync(
    script,
    `import { startServerProcess } from ${JSON.stringify(join(SUPPORT, 'server-process.ts'))};
import { startFakeProviderProcess } from ${JSON.stringify(join(SUPPORT, 'fake-provider/fake-provider-process.ts'))};
const fake = await startFakeProviderProcess({ timeoutMs: 600_000 });
const server = await startServerProcess({}, { entryPoint: ${JSON.stringify(entry)}, timeoutMs: 600_000 });
console.log('server', await server.stop(), 'fake', await fake.stop());
`,
  );
  const child = Bun.spawn([process.execPath, script], { stdout: 'pipe', stderr: 'pipe' });
  children.push(child);
  const exit = await raceTimeout(child.exited, 20_000, 'still running');
  expect(exit).toBe(0);
  expect(await new Response(child.stdout).text()).toBe('server 0 fake 0\n');
}, 30_000);
