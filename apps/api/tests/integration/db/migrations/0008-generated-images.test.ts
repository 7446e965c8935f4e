import { expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { Migrator } from 'kysely/migration';
import { openDatabase } from '../../../../src/db/database';
import { migrateToLatest } from '../../../../src/db/migrate';
import { createMigrationProvider } from '../../../../src/db/migrations';
import { createTestPng } from '../../../support/images/test-png';
import { createTestDatabaseConfig, DATABASE_KINDS } from '../../../support/test-databases';
import { insertTestChat, insertTestUser } from '../../../support/test-rows';

for (const kind of DATABASE_KINDS) {
  test(`0008 keeps the images stored before it, with their sha256, and ties them to their chat [${kind}]`, async () => {
    const { config, cleanup } = await createTestDatabaseConfig(kind);
    const database = openDatabase(config);
    try {
      const migrator = new Migrator({ db: database.db, provider: createMigrationProvider(kind) });
      const before = await migrator.migrateTo('0003-chat-turns');
      expect(before.error).toBeUndefined();
      const userId = await insertTestUser(database);
      const chatId = await insertTestChat(database, userId);
      const bytes = createTestPng('before 0008');
      // biome-ignore lint/suspicious/noExplicitAny: the table as migration 0002 made it (no sha256 yet).
      await (database.db as any)
        .insertInto('generated_images')
        .values({
          id: 'img_old',
          user_id: userId,
          chat_id: chatId,
          tool_call_id: 'call_old',
          prompt: 'old',
          model: null,
          mime_type: 'image/png',
          byte_size: bytes.byteLength,
          data: bytes,
          created_at: new Date().toISOString(),
        })
        .execute();
      expect(await migrateToLatest(database)).toContain('0008-generated-images');
      const row = await database.db
        .selectFrom('generated_images')
        .selectAll()
        .where('id', '=', 'img_old')
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ chat_id: chatId, tool_call_id: 'call_old', prompt: 'old' });
      expect(row.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(Buffer.from(row.data).equals(Buffer.from(bytes))).toBe(true);
      await database.db.deleteFrom('chats').where('id', '=', chatId).execute();
      const left = await database.db.selectFrom('generated_images').select('id').execute();
      expect(left).toEqual([]);
    } finally {
      await database.close();
      cleanup();
    }
  }, 60_000);
}
