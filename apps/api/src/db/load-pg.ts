/**
 * node-postgres, loaded the first time a PostgreSQL database is opened: a
 * server on SQLite never loads it (nearly ten thousand heap objects that every
 * full garbage collection would walk; docs/chat-turns.md#what-a-full-collection-costs).
 * Loaded with `require`, so opening a database stays synchronous.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';

const require = createRequire(import.meta.url);
let loaded: typeof pg | undefined;

export function loadPg(): typeof pg {
  loaded ??= require('pg') as typeof pg;
  return loaded;
}
