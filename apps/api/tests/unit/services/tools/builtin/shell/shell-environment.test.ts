import { describe, expect, test } from 'bun:test';
import {
  buildShellEnvironment,
  isSecretShapedName,
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
    const { env } = buildShellEnvironment(base, { allowedEnvVars: ['OPENAI_API_KEY'] });
    expect(env.OPENAI_API_KEY).toBe('sk-1');
    expect(env.GITHUB_TOKEN).toBeUndefined();
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
