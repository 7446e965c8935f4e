import { describe, expect, test } from 'bun:test';
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
      imageStore: 'database',
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
        MANGO_IMAGE_STORE: 'Directory',
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
      imageStore: 'directory',
    });
  });

  test.each([
    [{ PORT: '70000' }, /PORT must be a whole number/],
    [{ DATABASE_URL: 'mysql://db/mango' }, /DATABASE_URL must be a PostgreSQL URL/],
    [{ MANGO_ALLOW_SIGNUP: 'maybe' }, /MANGO_ALLOW_SIGNUP must be true or false/],
    [{ BETTER_AUTH_SECRET: 'short' }, /BETTER_AUTH_SECRET must be at least 32 characters/],
    [{ MANGO_LOG_LEVEL: 'loud' }, /MANGO_LOG_LEVEL must be one of/],
    [{ MANGO_PUBLIC_URL: 'mango.example.com' }, /MANGO_PUBLIC_URL must be the http\(s\) URL/],
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
