import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/database';
import { migrateToLatest } from '../../../src/db/migrate';
import { getMigrations } from '../../../src/db/migrations';
import { createTestDatabaseConfig, DATABASE_KINDS } from '../../support/test-databases';

const MIGRATE_ONCE = join(import.meta.dir, '../../support/fixtures/migrate-once.ts');

const EXPECTED_TABLES = [
  'accounts',
  'api_keys',
  'chat_turns',
  'chats',
  'file_reads',
  'generated_images',
  'granted_roots',
  'invites',
  'mcp_servers',
  'messages',
  'rate_limits',
  'sessions',
  'turn_events',
  'turn_starts',
  'turns',
  'user_tool_settings',
  'users',
  'verifications',
];

for (const kind of DATABASE_KINDS) {
  describe(`migrations [${kind}]`, () => {
    test('apply every migration once, then nothing on a second run or a second start', async () => {
      const { config, cleanup } = await createTestDatabaseConfig(kind);
      try {
        const first = openDatabase(config);
        const applied = await migrateToLatest(first);
        expect(applied).toEqual(Object.keys(getMigrations(kind)));
        expect(await migrateToLatest(first)).toEqual([]);
        const tables = (await first.db.introspection.getTables()).map((table) => table.name).sort();
        expect(tables).toEqual(EXPECTED_TABLES);
        await first.close();

        const second = openDatabase(config);
        expect(await migrateToLatest(second)).toEqual([]);
        await second.close();
      } finally {
        cleanup();
      }
    }, 60_000);

    test('two instances starting together migrate once between them', async () => {
      const { config, cleanup } = await createTestDatabaseConfig(kind);
      try {
        const children = [0, 1].map(() =>
          Bun.spawn([process.execPath, MIGRATE_ONCE, JSON.stringify(config)], {
            stdout: 'pipe',
            stderr: 'pipe',
          }),
        );
        const outputs = await Promise.all(
          children.map(async (child) => {
            const [stdout, stderr, code] = await Promise.all([
              new Response(child.stdout).text(),
              new Response(child.stderr).text(),
              child.exited,
            ]);
            expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
            return JSON.parse(stdout) as string[];
          }),
        );
        expect(outputs.flat().sort()).toEqual(Object.keys(getMigrations(kind)).sort());
        const database = openDatabase(config);
        const count = await sql<{
          count: number;
        }>`select count(*) as count from kysely_migration`.execute(database.db);
        await database.close();
        expect(Number(count.rows[0]?.count)).toBe(Object.keys(getMigrations(kind)).length);
      } finally {
        cleanup();
      }
    }, 60_000);
  });
}
