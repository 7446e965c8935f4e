/**
 * The server's configuration never reaches a shell (docs/security.md#the-servers-secrets): the
 * real server (`apps/api/src/index.ts`) runs as a child process with every kind
 * of secret in its environment, and a bash call (unsandboxed, the worst case,
 * every secret name let through by `allowedEnvVars`) prints its own `env` and
 * the server's `/proc/<pid>/environ`. Neither shows a secret's value, as the
 * user the tests run as, and as a non-root user (`nobody`, when the tests run
 * as root), who cannot open the server's `/proc` files at all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ShellCommandResult } from '../../src/services/tools';
import { SERVER_CONFIGURATION_VARIABLES } from '../../src/services/tools/builtin/shell/shell-environment';
import { runToolThroughTurn, signUpOnChild } from '../support/child-server-turns';
import { useFakeProviderServer } from '../support/fake-provider';
import { getTestPostgres } from '../support/postgres-server';
import { type ServerProcess, startServerProcess } from '../support/server-process';

const fake = useFakeProviderServer();
const ENTRY_POINT = join(import.meta.dir, '../../src/index.ts');
const NOBODY = 65534;

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'mango-secrets-'));
  // The non-root server writes its data directory here.
  chmodSync(directory, 0o777);
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const PROBE = [
  'echo "=== proc-environ"',
  'tr "\\0" "\\n" </proc/$PPID/environ; echo "environ-exit=$?"',
  'echo "=== shell-env"',
  'env',
  'echo "=== proc-mem"',
  'head -c 1 /proc/$PPID/mem >/dev/null; echo "mem-exit=$?"',
].join('\n');

/** A unique value per variable, so a leak of any of them is found by its value. */
function secretEnvironment(databaseUrl?: string): Record<string, string> {
  const marker = () => `leak-${crypto.randomUUID()}`;
  return {
    BETTER_AUTH_SECRET: `${marker()}-${marker()}`,
    MANGO_PROBE_SETTING: marker(),
    OPENAI_API_KEY: marker(),
    OPENAI_BASE_URL: fake.baseUrl('openai'),
    ANTHROPIC_API_KEY: marker(),
    ANTHROPIC_BASE_URL: fake.baseUrl('anthropic'),
    GEMINI_API_KEY: marker(),
    GEMINI_BASE_URL: fake.baseUrl('gemini'),
    OPENAI_COMPATIBLE_API_KEY: marker(),
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl('openai-compatible'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** Starts the server, switches bash on with every secret let through by name, and runs the probe. */
async function probeShell(
  env: Record<string, string>,
  options: { asNobody: boolean; dataDir: string },
): Promise<{ server: ServerProcess; result: ShellCommandResult }> {
  const command = options.asNobody
    ? [
        'setpriv',
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        '--clear-groups',
        process.execPath,
        ENTRY_POINT,
      ]
    : [process.execPath, ENTRY_POINT];
  const server = await startServerProcess(
    { ...env, MANGO_DATA_DIR: options.dataDir, HOME: directory },
    { cwd: directory, command },
  );
  try {
    const client = await signUpOnChild(server.url, `probe-${crypto.randomUUID()}@example.test`);
    const enabled = await client.call('/api/settings/tools/bash', 'PUT', {
      enabled: true,
      parameters: {
        allowedEnvVars: [...SERVER_CONFIGURATION_VARIABLES, ...Object.keys(env)],
        sandbox: false,
      },
    });
    expect(enabled.status).toBe(200);
    const event = await runToolThroughTurn(client, fake, 'bash', { command: PROBE });
    expect(event.isError).toBe(false);
    const result = JSON.parse(event.content) as ShellCommandResult;
    expect(result.sandboxed).toBe(false);
    return { server, result };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function expectNoSecret(output: string, env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    if (name.endsWith('_BASE_URL')) continue;
    expect({ name, leaked: output.includes(value) }).toEqual({ name, leaked: false });
  }
  expect(output).not.toMatch(/^(DATABASE_URL|BETTER_AUTH_SECRET|MANGO_PROBE_SETTING)=/m);
}

describe('the server’s secrets and a shell', () => {
  test('as the user the tests run as: env and /proc/<server>/environ show no secret', async () => {
    const postgres = await getTestPostgres();
    // Trust authentication ignores the password, so the URL can carry a unique one.
    const databaseUrl = (await postgres.createDatabase()).replace(
      'postgres://postgres@',
      `postgres://postgres:leak-${crypto.randomUUID()}@`,
    );
    const env = secretEnvironment(databaseUrl);
    const { server, result } = await probeShell(env, {
      asNobody: false,
      dataDir: join(directory, 'data-self'),
    });
    try {
      expectNoSecret(result.stdout + result.stderr, env);
      const environ = result.stdout.split('=== shell-env')[0] ?? '';
      if (process.getuid?.() === 0) {
        // Root may open it (CAP_SYS_PTRACE): it is read, and the secrets are gone from it.
        expect(environ).toContain('environ-exit=0');
        expect(environ).toContain('PATH=');
      } else {
        // A non-root user cannot open a non-dumpable process's environ at all.
        expect(environ).not.toContain('environ-exit=0');
      }
    } finally {
      await server.stop();
    }
  });

  test('as a non-root server user: the server’s /proc files cannot even be opened', async () => {
    const asNobody = process.getuid?.() === 0;
    const dataDir = join(directory, 'data-nobody');
    const env = secretEnvironment();
    const { server, result } = await probeShell(env, { asNobody, dataDir });
    try {
      expectNoSecret(result.stdout + result.stderr, env);
      expect(result.stdout).not.toContain('environ-exit=0');
      expect(result.stdout).not.toContain('mem-exit=0');
      expect(result.stderr).toContain('Permission denied');
    } finally {
      await server.stop();
    }
  });
});
