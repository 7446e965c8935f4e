/**
 * The README's chat section names files, events, error codes, limits,
 * variables and a script; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ProviderErrorCode, TurnStreamEvent } from '@mango/shared';
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT } from '../../src/services/chat';
import { loadProvidersConfig } from '../../src/services/providers/provider-config';
import { PROVIDER_IDS } from '../../src/services/providers/provider-registry';

const repoRoot = resolve(import.meta.dir, '../../../..');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const start = readme.indexOf('## Chat turns and model providers');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));

const literals = (schema: {
  anyOf: { const?: string; properties?: { type: { const: string } } }[];
}) => schema.anyOf.map((member) => member.const ?? member.properties?.type.const);

describe('README: chat turns and model providers', () => {
  test('the section exists and every path it names exists', () => {
    expect(start).toBeGreaterThan(0);
    const paths = [...section.matchAll(/`(apps\/[^`]+)`/g)].map((match) => match[1] as string);
    expect(paths.length).toBeGreaterThan(4);
    for (const path of paths) expect(existsSync(join(repoRoot, path))).toBe(true);
  });

  test('the event table lists exactly the event vocabulary', () => {
    const table = [...section.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
    const events = table.filter(
      (name) => !(PROVIDER_IDS as readonly string[]).includes(name as string),
    );
    expect(events.sort()).toEqual((literals(TurnStreamEvent as never) as string[]).sort());
  });

  test('the error codes it lists are the contract’s', () => {
    const codes = literals(ProviderErrorCode as never) as string[];
    const listed = section.slice(
      section.indexOf('A provider failure'),
      section.indexOf('Agent mode puts'),
    );
    for (const code of codes.filter((code) => code !== 'aborted'))
      expect(listed).toContain(`\`${code}\``);
  });

  test('the limits and the bench script are the code’s', () => {
    expect(section).toContain(
      `\`maxIterations\` (1–${MAX_ITERATIONS_LIMIT}, default ${DEFAULT_MAX_ITERATIONS})`,
    );
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;
    expect(section).toContain('npm run bench:chat');
    expect(existsSync(join(repoRoot, scripts['bench:chat'].split(' ')[1]))).toBe(true);
  });

  test('each provider is offered exactly by the variables the README names', () => {
    expect(Object.keys(loadProvidersConfig({}))).toEqual([]);
    expect(Object.keys(loadProvidersConfig({ OPENAI_API_KEY: 'k' }))).toEqual(['openai']);
    expect(Object.keys(loadProvidersConfig({ ANTHROPIC_API_KEY: 'k' }))).toEqual(['anthropic']);
    expect(Object.keys(loadProvidersConfig({ GEMINI_API_KEY: 'k' }))).toEqual(['gemini']);
    expect(
      loadProvidersConfig({ OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1' }),
    ).toEqual({
      'openai-compatible': { baseURL: 'http://localhost:11434/v1' },
    });
    for (const name of [
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'GEMINI_API_KEY',
      'GEMINI_BASE_URL',
      'OPENAI_COMPATIBLE_BASE_URL',
      'OPENAI_COMPATIBLE_API_KEY',
    ])
      expect(readme).toContain(`\`${name}\``);
    expect(section).toContain('OPENAI_COMPATIBLE_BASE_URL=http://localhost:11434/v1 npm start');
  });
});
