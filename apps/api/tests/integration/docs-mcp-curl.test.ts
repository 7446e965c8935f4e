/** The curl walkthrough of docs/mcp.md, run as written against a freshly started server. */
import { expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docShellBlock, runDocShellBlock } from '../support/doc-shell';
import { startServerProcess } from '../support/server-process';

const DOC = 'docs/mcp.md';
const HEADING = '### Walkthrough with curl';

test('the Settings → MCP walkthrough works against `npm start` with zero configuration', async () => {
  const block = docShellBlock(DOC, HEADING);
  const workingDirectory = mkdtempSync(join(tmpdir(), 'mango-mcp-doc-'));
  try {
    const server = await startServerProcess({}, { cwd: workingDirectory });
    try {
      const { code, stdout, stderr } = await runDocShellBlock(block, {
        cwd: workingDirectory,
        serverUrl: server.url,
      });
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
