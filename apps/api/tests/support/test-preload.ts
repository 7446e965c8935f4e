/** Loaded before every test file (bunfig.toml): run-wide teardown of shared test servers. */
import { afterAll } from 'bun:test';
import { stopTestPostgres } from './postgres-server';

afterAll(async () => {
  await stopTestPostgres();
});
