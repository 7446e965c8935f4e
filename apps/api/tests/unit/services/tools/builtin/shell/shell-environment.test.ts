import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildShellEnvironment,
  isSecretShapedName,
  isServerConfigurationName,
} from '../../../../../../src/services/tools/builtin/shell/shell-environment';

describe('isSecretShapedName', () => {
  test.each([
    'OPENAI_API_KEY',
    'AWS_SECRET_ACCESS_KEY',
    'GITHUB_TOKEN',
    'PGPASSWORD',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SSH_PRIVATE_KEY',
    'AWS_ACCESS_KEY_ID',
    'my_secret_value',
    'npm_config__authToken',
  ])('%s is secret-shaped', (name) => {
    expect(isSecretShapedName(name)).toBe(true);
  });

  test.each(['PATH', 'HOME', 'LANG', 'TERM', 'KEYBOARD', 'TOKE'])('%s is not', (name) => {
    expect(isSecretShapedName(name)).toBe(false);
  });
});

describe('buildShellEnvironment', () => {
  const base = {
    PATH: '/usr/bin',
    HOME: '/home/someone',
    OPENAI_API_KEY: 'sk-1',
    GITHUB_TOKEN: 'ghp-1',
    ORDINARY: 'plain',
    PAGER: 'less',
    UNSET: undefined,
  };

  test('withholds secret-shaped names and forces the non-interactive settings', () => {
    const { env, withheld } = buildShellEnvironment(base);
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/someone',
      ORDINARY: 'plain',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    });
    expect(withheld.sort()).toEqual(['GITHUB_TOKEN', 'OPENAI_API_KEY']);
  });

  test('allowedEnvVars lets a named secret through, and only that one', () => {
    const { env } = buildShellEnvironment(base, { allowedEnvVars: ['GITHUB_TOKEN'] });
    expect(env.GITHUB_TOKEN).toBe('ghp-1');
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });

  test('deniedEnvVars withholds ordinary names and wins over allowedEnvVars', () => {
    const { env, withheld } = buildShellEnvironment(base, {
      allowedEnvVars: ['OPENAI_API_KEY'],
      deniedEnvVars: ['ORDINARY', 'OPENAI_API_KEY'],
    });
    expect(env.ORDINARY).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(withheld).toContain('ORDINARY');
  });

  test('extra variables are added last', () => {
    const { env } = buildShellEnvironment(base, { extra: { MARK: '1' } });
    expect(env.MARK).toBe('1');
  });
});

describe("the server's configuration never reaches a shell", () => {
  /** Every variable the README's configuration table documents, except where to listen. */
  function documentedServerVariables(): string[] {
    const readme = readFileSync(
      path.join(import.meta.dir, '../../../../../../../../README.md'),
      'utf8',
    );
    const table = readme.slice(readme.indexOf('## Configuration'));
    const names = [...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] as string);
    return [...new Set(names)].filter((name) => name !== 'PORT' && name !== 'HOST');
  }

  test('every documented server variable is withheld, even when allowed by name', () => {
    const names = documentedServerVariables();
    expect(names).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'BETTER_AUTH_SECRET', 'MANGO_DATA_DIR']),
    );
    const base = Object.fromEntries(
      [...names, 'MANGO_SOMETHING_NEW', 'PATH'].map((name) => [name, 'x']),
    );
    const { env, withheld } = buildShellEnvironment(base, { allowedEnvVars: names });
    expect(Object.keys(env).filter((name) => name in base)).toEqual(['PATH']);
    expect(withheld.sort()).toEqual([...names, 'MANGO_SOMETHING_NEW'].sort());
    for (const name of names) expect(isServerConfigurationName(name)).toBe(true);
    expect(isServerConfigurationName('DATABASE')).toBe(false);
  });
});
