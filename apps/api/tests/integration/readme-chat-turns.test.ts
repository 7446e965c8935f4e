/**
 * The chat pages (docs/chat-turns.md, the event table of docs/architecture.md)
 * name files, events, error codes, limits, variables and a script; this keeps
 * each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderErrorCode, TurnStreamEvent } from '@mango/shared';
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT } from '../../src/services/chat';
import { loadProvidersConfig } from '../../src/services/providers/provider-config';
import { PROVIDER_IDS } from '../../src/services/providers/provider-registry';
import { docSection, flatten, REPO_ROOT, readDoc } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const readme = readDoc('README.md');
const section = readDoc('docs/chat-turns.md');
const events = docSection('docs/architecture.md', '## The event vocabulary');

const literals = (schema: {
  anyOf: { const?: string; properties?: { type: { const: string } } }[];
}) => schema.anyOf.map((member) => member.const ?? member.properties?.type.const);

describe('README: chat turns and model providers', () => {
  test('the section exists and every path it names exists', () => {
    const paths = [...section.matchAll(/`(apps\/[^`]+)`/g)].map((match) => match[1] as string);
    expect(paths.length).toBeGreaterThan(4);
    for (const path of paths) expect(existsSync(join(repoRoot, path))).toBe(true);
  });

  test('the event table lists exactly the event vocabulary', () => {
    const table = [...events.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
    const listed = table.filter(
      (name) => !(PROVIDER_IDS as readonly string[]).includes(name as string),
    );
    expect(listed.sort()).toEqual((literals(TurnStreamEvent as never) as string[]).sort());
  });

  test('the error codes it lists are the contract’s', () => {
    const codes = literals(ProviderErrorCode as never) as string[];
    const listed = docSection('docs/chat-turns.md', '### When the provider fails');
    const table = docSection('docs/errors.md', '## Provider error codes');
    for (const code of codes) {
      expect(listed).toContain(`\`${code}\``);
      expect(table).toContain(`| \`${code}\``);
    }
  });

  test('the limits and the bench script are the code’s', () => {
    expect(flatten(section)).toContain(
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
