/** Loaded before every test file (bunfig.toml): run-wide teardown of shared test servers and templates. */
import { afterAll } from 'bun:test';
import { stopTestPostgres } from './postgres-server';
import { removeTestDatabaseTemplates } from './test-databases';

afterAll(async () => {
  await removeTestDatabaseTemplates();
  await stopTestPostgres();
});
