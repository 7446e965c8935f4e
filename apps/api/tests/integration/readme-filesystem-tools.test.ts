/**
 * The README's filesystem tools section names files and states limits; this
 * keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BYTE_VIEW_MAX_BYTES,
  DEFAULT_MAX_LINES,
  MAX_MAX_LINES,
  TEXT_VIEW_MAX_BYTES,
} from '../../src/services/tools/builtin/read-file';
import { BINARY_SNIFF_BYTES } from '../../src/services/tools/fs/binary';
import { MAX_LINE_CHARACTERS, MAX_WINDOW_BYTES } from '../../src/services/tools/fs/text-window';
import { getTool } from '../../src/services/tools/index';
import { MAX_PATH_BYTES, MAX_PATH_COMPONENT_BYTES } from '../../src/services/tools/path-policy';

const repoRoot = resolve(import.meta.dir, '../../../..');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const start = readme.indexOf('## Filesystem tools and the path policy');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));

describe('README: filesystem tools', () => {
  test('every file the section names exists', () => {
    expect(start).toBeGreaterThan(0);
    const named = [...section.matchAll(/`((?:apps|builtin)\/[\w/.-]+\.ts)`/g)].map(
      (match) => match[1] as string,
    );
    expect(named.length).toBeGreaterThan(4);
    for (const file of named) {
      const full = file.startsWith('builtin/')
        ? join(repoRoot, 'apps/api/src/services/tools', file)
        : join(repoRoot, file);
      expect(existsSync(full)).toBe(true);
    }
  });

  test('the limits it states are the code’s', () => {
    expect(section).toContain(`longer than ${MAX_PATH_BYTES} bytes`);
    expect(section).toContain(`component over ${MAX_PATH_COMPONENT_BYTES} bytes`);
    expect(TEXT_VIEW_MAX_BYTES).toBe(10 * 1024 * 1024);
    expect(BYTE_VIEW_MAX_BYTES).toBe(256 * 1024);
    expect(section).toContain('10 MiB for the text view, 256 KiB for\nbyte views');
    expect(section).toContain(
      `\`maxLines\` (default ${DEFAULT_MAX_LINES}, at most\n${MAX_MAX_LINES})`,
    );
    expect(section).toContain(`lines over ${MAX_LINE_CHARACTERS} characters are cut`);
    expect(MAX_WINDOW_BYTES).toBe(100 * 1024);
    expect(section).toContain('passes 100 KiB');
    expect(BINARY_SNIFF_BYTES).toBe(8 * 1024);
    expect(section).toContain('first 8 KiB\n  (`BINARY_SNIFF_BYTES`');
  });

  test('the tools it describes are registered and on by default', () => {
    for (const name of ['read_file', 'write_file', 'edit_file']) {
      expect(section).toContain(`\`${name}\``);
      expect(getTool(name)?.settings.enabledByDefault).toBe(true);
    }
  });
});
