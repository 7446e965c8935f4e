/**
 * A writer killed mid-write leaves its temp file (`.mango-write-<pid>-….tmp`)
 * beside the target; the next write into that directory removes it
 * (docs/tools/filesystem.md#atomic-writes), and keeps the temp files of writers still running.
 * The killed writer is a real process, SIGKILLed while its temp file is open.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { executeTool } from '../../../../../src/services/tools';
import { createTestCallContext } from '../../../../support/tool-context';
import { waitUntil } from '../../../../support/wait-until';

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'mango-temp-files-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A process that opens a temp file named as the atomic writer names its own, then waits to be killed. */
function startWriter(): Bun.Subprocess<'ignore', 'pipe', 'inherit'> {
  const script = `
    const { openSync, writeSync } = require('node:fs');
    const name = '.mango-write-' + process.pid + '-' + require('node:crypto').randomBytes(6).toString('hex') + '.tmp';
    const fd = openSync(require('node:path').join(process.argv[1], name), 'wx');
    writeSync(fd, 'half a fi');
    console.log(name);
    setInterval(() => {}, 1000);
  `;
  return Bun.spawn([process.execPath, '-e', script, directory], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function firstLine(child: Bun.Subprocess<'ignore', 'pipe', 'inherit'>): Promise<string> {
  const reader = child.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

test('the next write into a directory removes the temp files of writers that died, not of running ones', async () => {
  const killed = startWriter();
  const running = startWriter();
  try {
    const abandoned = await firstLine(killed);
    const inFlight = await firstLine(running);
    killed.kill('SIGKILL');
    await killed.exited;
    expect(existsSync(path.join(directory, abandoned))).toBe(true);

    await executeTool(
      'write_file',
      { path: path.join(directory, 'target.txt'), content: 'whole\n' },
      createTestCallContext(),
    );
    expect(await waitUntil(() => !existsSync(path.join(directory, abandoned)), 2_000)).toBe(true);
    expect(existsSync(path.join(directory, inFlight))).toBe(true);
    expect(readdirSync(directory).sort()).toEqual([inFlight, 'target.txt'].sort());
  } finally {
    killed.kill('SIGKILL');
    running.kill('SIGKILL');
    await Promise.all([killed.exited, running.exited]);
  }
});
