/**
 * The shell tools page (docs/tools/shell.md) names files, constants, a script
 * and system packages; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_DRAIN_MS,
  SHELL_RUN_MARKER_VARIABLE,
} from '../../src/services/tools/builtin/shell/run-shell-command';
import { SECRET_NAME_FRAGMENTS } from '../../src/services/tools/builtin/shell/shell-environment';
import {
  SHELL_CLEANUP_RESERVE_MS,
  SHELL_MAX_OUTPUT_BYTES,
  SHELL_TIMEOUT_SECONDS,
} from '../../src/services/tools/builtin/shell/shell-tool';
import { flatten, REPO_ROOT, readDoc } from '../support/markdown-docs';

const repoRoot = REPO_ROOT;
const section = readDoc('docs/tools/shell.md');
const flat = flatten(section);

describe('README: shell tools', () => {
  test('the section exists and names the module that registers the tools', () => {
    const module = section.match(/`(apps\/api\/src\/services\/tools\/builtin\/shell\.ts)`/)?.[1];
    expect(module && existsSync(join(repoRoot, module))).toBe(true);
  });

  test('the numbers and names it states are the code’s', () => {
    expect(flat).toContain(
      `\`timeoutSeconds\` (${SHELL_TIMEOUT_SECONDS.min}–${SHELL_TIMEOUT_SECONDS.max}, default ${SHELL_TIMEOUT_SECONDS.default})`,
    );
    expect(SHELL_MAX_OUTPUT_BYTES).toEqual({ min: 1024, max: 1024 * 1024, default: 100 * 1024 });
    expect(flat).toContain(`(\`${SHELL_RUN_MARKER_VARIABLE}\`)`);
    expect(flat).toContain(`at most ${DEFAULT_DRAIN_MS / 1000} s`);
    expect(SHELL_CLEANUP_RESERVE_MS).toBe(1000);
    expect(flat).toContain('fires one second earlier');
    for (const fragment of SECRET_NAME_FRAGMENTS) expect(section).toContain(`\`${fragment}\``);
  });

  test('the bench script and the system packages it names exist', () => {
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;
    expect(scripts['bench:shell']).toBeString();
    expect(existsSync(join(repoRoot, scripts['bench:shell'].split(' ')[1]))).toBe(true);
    const install = readFileSync(join(repoRoot, '.ci/install-system-packages'), 'utf8');
    expect(install).toContain('need zsh zsh');
    expect(install).toContain('need bwrap bubblewrap');
  });
});
