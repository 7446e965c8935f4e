/**
 * Group commit (`apps/api/src/db/group-commit.ts`) against one transaction
 * per save, on a real SQLite file checkpointed in the background as the
 * server does. Each save is the repository's own (`writeMessageChanges`), of
 * one message: read the chat's latest message time, insert it, touch the chat. `savers` loops run
 * at once, each saving into chats of its own one save after another (as
 * running turns do); rounds alternate the two ways so both see the same
 * machine load. Prints the wall time per save (medians over rounds) and the
 * ratio grouped / alone for 1, 20 and 200 savers at once.
 *
 *   npm run bench:saves          (ROUNDS=9 SAVES=4000 npm run bench:saves)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from 'kysely';
import { openDatabase } from '../apps/api/src/db/database';
import { createGroupCommit } from '../apps/api/src/db/group-commit';
import { migrateToLatest } from '../apps/api/src/db/migrate';
import type { DatabaseSchema } from '../apps/api/src/db/schema';
import { writeMessageChanges } from '../apps/api/src/services/chat/chat-repository';
import { insertTestChat, insertTestUser } from '../apps/api/tests/support/test-rows';
import { median } from './load/figures';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SAVES = Number(process.env.SAVES ?? 2000);
const CHATS = 200;
const SAVERS = [1, 20, 200];

const directory = mkdtempSync(join(tmpdir(), 'bench-saves-'));
const database = openDatabase(
  { kind: 'sqlite', path: join(directory, 'mango.db') },
  { checkpointInBackground: true },
);
try {
  await migrateToLatest(database);
  const { db } = database;
  const userId = await insertTestUser(database, 'bench');
  const chatIds: string[] = [];
  for (let index = 0; index < CHATS; index += 1)
    chatIds.push(await insertTestChat(database, userId));

  const parts = [{ type: 'text' as const, text: 'x'.repeat(400) }];
  // The repository's own save of one message, as a turn's checkpoint makes it.
  const save = (chatId: string) => (transaction: Transaction<DatabaseSchema>) =>
    writeMessageChanges(transaction, chatId, { append: [{ role: 'assistant', parts }] });

  const group = createGroupCommit(database);
  const ways = {
    grouped: (chatId: string) => group.run(save(chatId)),
    alone: (chatId: string) => db.transaction().execute(save(chatId)),
  };

  /** µs per save with `savers` loops at once, each over its own chats. */
  async function measure(way: keyof typeof ways, savers: number): Promise<number> {
    const perSaver = Math.max(1, Math.floor(SAVES / savers));
    const started = performance.now();
    await Promise.all(
      Array.from({ length: savers }, async (_, saver) => {
        for (let index = 0; index < perSaver; index += 1)
          await ways[way](chatIds[(saver + index * savers) % CHATS] as string);
      }),
    );
    return ((performance.now() - started) * 1000) / (perSaver * savers);
  }

  console.log(
    `message saves on SQLite (WAL, background checkpoints), ${SAVES} saves per case and round, ${ROUNDS} rounds, ways alternating; load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  console.log('  savers at once   grouped µs/save   alone µs/save   grouped / alone');
  for (const savers of SAVERS) {
    const results = { grouped: [] as number[], alone: [] as number[], ratio: [] as number[] };
    await measure('grouped', savers);
    await measure('alone', savers);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order: (keyof typeof ways)[] =
        round % 2 === 0 ? ['grouped', 'alone'] : ['alone', 'grouped'];
      const timed: Record<string, number> = {};
      for (const way of order) timed[way] = await measure(way, savers);
      results.grouped.push(timed.grouped as number);
      results.alone.push(timed.alone as number);
      results.ratio.push((timed.grouped as number) / (timed.alone as number));
    }
    console.log(
      `  ${String(savers).padStart(14)}   ${median(results.grouped).toFixed(1).padStart(15)}   ${median(results.alone).toFixed(1).padStart(13)}   ${median(results.ratio).toFixed(2).padStart(14)}x (${Math.min(...results.ratio).toFixed(2)}-${Math.max(...results.ratio).toFixed(2)})`,
    );
  }
} finally {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
}
