/**
 * The filesystem tools page (docs/tools/filesystem.md) names files and states
 * limits; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
import { flatten, REPO_ROOT, readDoc } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const page = readDoc('docs/tools/filesystem.md');
// Everything but the search tools, which readme-search-tools.test.ts checks.
const section = page.slice(0, page.indexOf('\n## list_directory, glob and grep'));
const flat = flatten(section);

describe('README: filesystem tools', () => {
  test('every file the section names exists', () => {
    expect(section.length).toBeLessThan(page.length);
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
    expect(flat).toContain(`longer than ${MAX_PATH_BYTES} bytes`);
    expect(flat).toContain(`component over ${MAX_PATH_COMPONENT_BYTES} bytes`);
    expect(TEXT_VIEW_MAX_BYTES).toBe(10 * 1024 * 1024);
    expect(BYTE_VIEW_MAX_BYTES).toBe(256 * 1024);
    expect(flat).toContain('10 MiB for the text view, 256 KiB for byte views');
    expect(flat).toContain(`\`maxLines\` (default ${DEFAULT_MAX_LINES}, at most ${MAX_MAX_LINES})`);
    expect(flat).toContain(`Lines over ${MAX_LINE_CHARACTERS} characters are cut`);
    expect(MAX_WINDOW_BYTES).toBe(100 * 1024);
    expect(flat).toContain('passes 100 KiB');
    expect(BINARY_SNIFF_BYTES).toBe(8 * 1024);
    expect(flat).toContain('first 8 KiB (`BINARY_SNIFF_BYTES`');
  });

  test('the tools it describes are registered and on by default', () => {
    for (const name of ['read_file', 'write_file', 'edit_file']) {
      expect(section).toContain(`\`${name}\``);
      expect(getTool(name)?.settings.enabledByDefault).toBe(true);
    }
  });
});
