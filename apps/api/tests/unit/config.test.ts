import { describe, expect, test } from 'bun:test';
import { hostname } from 'node:os';
import { ConfigError, loadServerConfig } from '../../src/config';

describe('loadServerConfig', () => {
  test('zero configuration: port 3001 on 127.0.0.1, SQLite in ./data, no sign-ups after the first', () => {
    expect(loadServerConfig({}, '/srv/mango')).toEqual({
      port: 3001,
      host: '127.0.0.1',
      dataDir: '/srv/mango/data',
      database: { kind: 'sqlite', path: '/srv/mango/data/mango.db' },
      allowSignup: false,
      logLevel: 'info',
      trustedOrigins: [],
      turnTimeoutSeconds: 1800,
      providerIdleTimeoutSeconds: 300,
      instanceId: `${hostname()}:3001`,
      authAttemptsPerMinute: 10,
      trustedProxies: [],
      turnLimits: { startsPerMinute: 30, concurrent: 3 },
      imageStore: 'database',
      mcp: {
        stdioAllow: [],
        allowPrivateUrls: false,
        connectBudgetMs: 5_000,
        connectTimeoutMs: 30_000,
        callTimeoutSeconds: 60,
        idleTimeoutMs: 900_000,
      },
    });
  });

  test('every variable is read', () => {
    const config = loadServerConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        MANGO_DATA_DIR: '/var/lib/mango',
        DATABASE_URL: 'postgresql://mango:secret@db:5432/mango',
        MANGO_ALLOW_SIGNUP: 'yes',
        BETTER_AUTH_SECRET: 'x'.repeat(32),
        MANGO_LOG_LEVEL: 'warn',
        MANGO_PUBLIC_URL: 'https://mango.example.com/',
        MANGO_TRUSTED_ORIGINS: 'https://app.example.com, http://localhost:5173',
        MANGO_TURN_TIMEOUT_SECONDS: '600',
        MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS: '45',
        MANGO_INSTANCE_ID: 'api-2',
        MANGO_AUTH_ATTEMPTS_PER_MINUTE: '0',
        MANGO_TRUSTED_PROXIES: '10.0.0.0/8, ::1',
        MANGO_TURNS_PER_MINUTE: '5',
        MANGO_CONCURRENT_TURNS: '1',
        MANGO_IMAGE_STORE: 'Directory',
        MANGO_MCP_STDIO_ALLOW: 'npx, uvx,,/opt/mcp/bin/server',
        MANGO_MCP_ALLOW_PRIVATE_URLS: 'true',
        MANGO_MCP_CONNECT_BUDGET_SECONDS: '2',
        MANGO_MCP_CONNECT_TIMEOUT_SECONDS: '90',
        MANGO_MCP_CALL_TIMEOUT_SECONDS: '120',
        MANGO_MCP_IDLE_TIMEOUT_SECONDS: '60',
      },
      '/ignored',
    );
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/mango',
      database: { kind: 'postgres', url: 'postgresql://mango:secret@db:5432/mango' },
      allowSignup: true,
      authSecret: 'x'.repeat(32),
      logLevel: 'warn',
      publicUrl: 'https://mango.example.com',
      trustedOrigins: ['https://app.example.com', 'http://localhost:5173'],
      turnTimeoutSeconds: 600,
      providerIdleTimeoutSeconds: 45,
      instanceId: 'api-2',
      authAttemptsPerMinute: 0,
      trustedProxies: ['10.0.0.0/8', '::1'],
      turnLimits: { startsPerMinute: 5, concurrent: 1 },
      imageStore: 'directory',
      mcp: {
        stdioAllow: ['npx', 'uvx', '/opt/mcp/bin/server'],
        allowPrivateUrls: true,
        connectBudgetMs: 2_000,
        connectTimeoutMs: 90_000,
        callTimeoutSeconds: 120,
        idleTimeoutMs: 60_000,
      },
    });
  });

  test.each([
    [{ PORT: '70000' }, /PORT must be a whole number/],
    [{ DATABASE_URL: 'mysql://db/mango' }, /DATABASE_URL must be a PostgreSQL URL/],
    [{ MANGO_ALLOW_SIGNUP: 'maybe' }, /MANGO_ALLOW_SIGNUP must be true or false/],
    [{ BETTER_AUTH_SECRET: 'short' }, /BETTER_AUTH_SECRET must be at least 32 characters/],
    [{ MANGO_LOG_LEVEL: 'loud' }, /MANGO_LOG_LEVEL must be one of/],
    [{ MANGO_PUBLIC_URL: 'mango.example.com' }, /MANGO_PUBLIC_URL must be the http\(s\) URL/],
    [{ MANGO_TURN_TIMEOUT_SECONDS: '5' }, /MANGO_TURN_TIMEOUT_SECONDS must be a whole number/],
    [{ MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS: '1.5' }, /MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS must/],
    [{ MANGO_INSTANCE_ID: 'a b' }, /MANGO_INSTANCE_ID must be/],
    [{ MANGO_AUTH_ATTEMPTS_PER_MINUTE: 'ten' }, /MANGO_AUTH_ATTEMPTS_PER_MINUTE must be a whole/],
    [{ MANGO_TURNS_PER_MINUTE: '-1' }, /MANGO_TURNS_PER_MINUTE must be a whole number/],
    [{ MANGO_CONCURRENT_TURNS: '1.5' }, /MANGO_CONCURRENT_TURNS must be a whole number/],
    [{ MANGO_TRUSTED_PROXIES: '10.0.0.0/8,proxy.local' }, /these are neither: proxy.local/],
    [
      { MANGO_MCP_ALLOW_PRIVATE_URLS: 'sure' },
      /MANGO_MCP_ALLOW_PRIVATE_URLS must be true or false/,
    ],
    [{ MANGO_MCP_CONNECT_BUDGET_SECONDS: '0' }, /MANGO_MCP_CONNECT_BUDGET_SECONDS must be a whole/],
    [{ MANGO_MCP_CALL_TIMEOUT_SECONDS: 'x' }, /MANGO_MCP_CALL_TIMEOUT_SECONDS must be a whole/],
    [{ MANGO_TRUSTED_ORIGINS: 'https://app.example.com/path' }, /MANGO_TRUSTED_ORIGINS must be/],
    [{ MANGO_TRUSTED_ORIGINS: 'app.example.com' }, /MANGO_TRUSTED_ORIGINS must be/],
  ])('%p is refused with a message naming the variable', (env, message) => {
    expect(() => loadServerConfig(env)).toThrow(ConfigError);
    expect(() => loadServerConfig(env)).toThrow(message);
  });
});

test('MANGO_IMAGE_STORE is database or directory', () => {
  expect(() => loadServerConfig({ MANGO_IMAGE_STORE: 's3' }, '/srv')).toThrow(
    'MANGO_IMAGE_STORE must be "database"',
  );
});
