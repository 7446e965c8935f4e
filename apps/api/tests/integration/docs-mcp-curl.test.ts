/** The curl walkthrough of docs/mcp.md, run as written against a freshly started server. */
import { expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docSection } from '../support/markdown-docs';
import { startServerProcess } from '../support/server-process';

const DOC = 'docs/mcp.md';
const HEADING = '### Walkthrough with curl';

test('the Settings → MCP walkthrough works against `npm start` with zero configuration', async () => {
  const block = docSection(DOC, HEADING).match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error(`No sh block under "${HEADING}" in ${DOC}.`);
  const workingDirectory = mkdtempSync(join(tmpdir(), 'mango-mcp-doc-'));
  try {
    const server = await startServerProcess({}, { cwd: workingDirectory });
    try {
      const run = Bun.spawn(['bash', '-euo', 'pipefail', '-c', block], {
        cwd: workingDirectory,
        env: { PATH: process.env.PATH ?? '', MANGO: server.url },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(run.stdout).text(),
        new Response(run.stderr).text(),
        run.exited,
      ]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      // Imported, listed idle (nothing started) with the secret masked, never shown again.
      expect(stdout).toContain('"created":true');
      expect(stdout).toContain('"status":"idle"');
      expect(stdout).toContain('"EXAMPLE_TOKEN":"••••••"');
      expect(stdout).not.toContain('not-shown-again');
      // The private address was refused, naming the setting that allows it.
      expect(stdout).toContain('"code":"validation_failed"');
      expect(stdout).toContain('MANGO_MCP_ALLOW_PRIVATE_URLS');
      // Disabled, then deleted.
      expect(stdout).toContain('"enabled":false');
      expect(stdout).toContain('"status":"disabled"');
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(workingDirectory, { recursive: true, force: true });
  }
});
