/**
 * The list_directory/glob/grep section of docs/tools/filesystem.md states
 * settings, limits and a command; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GLOB_TIME_BUDGET_MS } from '../../src/services/tools/builtin/glob';
import { GREP_TIME_BUDGET_MS } from '../../src/services/tools/builtin/grep';
import { WORKER_STOP_GRACE_MS } from '../../src/services/tools/builtin/grep/grep-worker-pool';
import {
  MAX_MATCH_LINE_CHARS,
  SLOW_REGEX_CALL_MS,
} from '../../src/services/tools/builtin/grep/match-lines';
import { DEFAULT_WALK_LIMITS } from '../../src/services/tools/fs/walk-tree';
import { getDefaultToolSettings, getTool } from '../../src/services/tools/index';
import { docSection, flatten, REPO_ROOT } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const section = docSection('docs/tools/filesystem.md', '## list_directory, glob and grep');
const flat = flatten(section);

function defaults(name: string): Record<string, unknown> {
  const tool = getTool(name);
  if (!tool) throw new Error(`${name} is not registered`);
  expect(tool.settings.enabledByDefault).toBe(true);
  return getDefaultToolSettings(tool).parameters;
}

function descriptor(name: string, setting: string) {
  return getTool(name)?.settings.parameterDescriptors.find((item) => item.name === setting);
}

describe('README: list_directory, glob and grep', () => {
  test('the section exists and the files it names exist', () => {
    const named = [...section.matchAll(/`((?:apps|builtin|tests|bench)\/[\w/.-]+\.ts)`/g)].map(
      (match) => match[1] as string,
    );
    expect(named.length).toBeGreaterThan(3);
    for (const file of named) {
      const full = file.startsWith('builtin/')
        ? join(repoRoot, 'apps/api/src/services/tools', file)
        : file.startsWith('tests/')
          ? join(repoRoot, 'apps/api', file)
          : join(repoRoot, file);
      expect([file, existsSync(full)]).toEqual([file, true]);
    }
  });

  test('the settings and defaults it states are the tools’', () => {
    expect(defaults('list_directory').maxEntries).toBe(1000);
    expect(descriptor('list_directory', 'maxEntries')?.max).toBe(10_000);
    expect(flat).toContain('`maxEntries` (1–10,000, default 1000)');
    expect(defaults('glob')).toMatchObject({
      maxResults: 200,
      includeDotfiles: false,
      absolute: false,
    });
    expect(flat).toContain('`maxResults` (1–5000, default 200), `includeDotfiles` (default false');
    expect(defaults('grep')).toMatchObject({
      maxResults: 100,
      maxMatchesPerFile: 20,
      maxFileSizeBytes: 1024 * 1024,
      includeDotfiles: false,
    });
    expect(descriptor('grep', 'maxFileSizeBytes')?.max).toBe(10 * 1024 * 1024);
    expect(flat).toContain(
      '`maxResults` (1–5000, default 100), `maxMatchesPerFile` (1–1000, default 20), `maxFileSizeBytes` (1 byte to 10 MiB, default 1 MiB)',
    );
  });

  test('the limits it states are the code’s', () => {
    expect(MAX_MATCH_LINE_CHARS).toBe(500);
    expect(flat).toContain('over 500 characters');
    expect(DEFAULT_WALK_LIMITS).toEqual({ maxEntries: 1_000_000, maxDepth: 256 });
    expect(flat).toContain('after 1,000,000 entries, does not descend more than 256 levels');
    expect([GLOB_TIME_BUDGET_MS, GREP_TIME_BUDGET_MS]).toEqual([10_000, 15_000]);
    expect(flat).toContain('(glob 10 s, grep 15 s,');
    expect(WORKER_STOP_GRACE_MS).toBe(250);
    expect(flat).toContain('within 250 ms');
    expect(SLOW_REGEX_CALL_MS).toBe(200);
    expect(flat).toContain('after 200 ms');
  });

  test('the benchmark command exists and CI installs what it needs', () => {
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;
    expect(section).toContain('`npm run bench:fs`');
    expect(scripts['bench:fs']).toBe('bun bench/fs-tools.ts');
    expect(existsSync(join(repoRoot, 'bench/fs-tools.ts'))).toBe(true);
    const install = readFileSync(join(repoRoot, '.ci/install-system-packages'), 'utf8');
    expect(install).toContain('need rg ripgrep');
    expect(install).toContain('need fdfind fd-find');
  });
});
