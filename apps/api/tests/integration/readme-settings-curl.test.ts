/** The curl walkthrough of docs/http-api.md, run as written against a freshly started server. */
import { expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docShellBlock, runDocShellBlock } from '../support/doc-shell';
import { startServerProcess } from '../support/server-process';

const DOC = 'docs/http-api.md';
const HEADING = '## Walkthrough with curl';

test("the README's curl walk-through works against `npm start` with zero configuration", async () => {
  const workingDirectory = mkdtempSync(join(tmpdir(), 'mango-readme-'));
  try {
    // What `npm start` runs, in a fresh directory, with nothing configured.
    const server = await startServerProcess({}, { cwd: workingDirectory });
    try {
      const { code, stdout, stderr } = await runDocShellBlock(docShellBlock(DOC, HEADING), {
        cwd: workingDirectory,
        serverUrl: server.url,
      });
      expect({ code, stderr, stdout }).toEqual({ code: 0, stderr: '', stdout: expect.any(String) });
      // Step 3 and the API-key call both listed the tools.
      expect(stdout.match(/"name":"get_current_datetime"/g)?.length).toBeGreaterThanOrEqual(2);
      // The chat was created in agent mode, renamed, and listed through the API key.
      expect(stdout).toContain('"mode":"agent"');
      expect(stdout.match(/"title":"Project notes"/g)?.length).toBeGreaterThanOrEqual(2);

      const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ana@example.com', password: 'a long passphrase' }),
      });
      const cookie = signIn.headers
        .getSetCookie()
        .map((value) => value.split(';')[0])
        .join('; ');
      const tools = (await (
        await fetch(`${server.url}/api/settings/tools`, { headers: { cookie } })
      ).json()) as { tools: { name: string; enabled: boolean; parameters: object }[] };
      expect(tools.tools.find((tool) => tool.name === 'get_current_datetime')).toMatchObject({
        enabled: false,
        parameters: { defaultTimezone: 'America/Sao_Paulo' },
      });
      // Step 10 deleted it.
      const chats = (await (
        await fetch(`${server.url}/api/chats`, { headers: { cookie } })
      ).json()) as { chats: unknown[] };
      expect(chats.chats).toEqual([]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  } finally {
    rmSync(workingDirectory, { recursive: true, force: true });
  }
}, 60_000);
