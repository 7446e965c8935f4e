/**
 * Group commit (`apps/api/src/db/group-commit.ts`) against one transaction
 * per save, on a real SQLite file checkpointed in the background as the
 * server does. Each save is the repository's own (`writeMessageChanges`), of
 * one message: read the chat's latest message time, insert it, touch the chat. `savers` loops run
 * at once, each saving into chats of its own one save after another (as
 * running turns do); rounds rotate the three ways so all see the same
 * machine load: `run` (a group of what the current task asks for, committed
 * once its microtasks have run: the awaited saves of a turn), `gathered`
 * (`runGathered`: a group of what the event loop's turn asks for, after a
 * `setImmediate`: a step's save beside the next model call) and `alone` (a
 * transaction each). Prints the wall time per save (medians over rounds) and
 * each grouped way's ratio to `alone`, for 1, 20 and 200 savers at once.
 * `IDS=random` gives each message a random id instead of the repository's
 * time-ordered one (`apps/api/src/db/row-ids.ts`), for comparison.
 *
 *   npm run bench:saves          (ROUNDS=9 SAVES=4000 IDS=random npm run bench:saves)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from 'kysely';
import { openDatabase } from '../apps/api/src/db/database';
import { createGroupCommit } from '../apps/api/src/db/group-commit';
import { migrateToLatest } from '../apps/api/src/db/migrate';
import type { DatabaseSchema } from '../apps/api/src/db/schema';
import { writeMessageChanges } from '../apps/api/src/services/chat/write-message-changes';
import { insertTestChat, insertTestUser } from '../apps/api/tests/support/test-rows';
import { choiceFromEnv, numberFromEnv } from './env-options';
import { median } from './load/figures';

const ROUNDS = numberFromEnv('ROUNDS', 7);
const SAVES = numberFromEnv('SAVES', 2000);
const CHATS = 200;
const SAVERS = [1, 20, 200];
const RANDOM_IDS = choiceFromEnv('IDS', 'time-ordered', ['time-ordered', 'random']) === 'random';

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
    writeMessageChanges(transaction, chatId, {
      append: [
        {
          ...(RANDOM_IDS ? { id: `msg_${crypto.randomUUID().replaceAll('-', '')}` } : {}),
          role: 'assistant',
          parts,
        },
      ],
    });

  const group = createGroupCommit(database);
  const ways = {
    run: (chatId: string) => group.run(save(chatId)),
    gathered: (chatId: string) => group.runGathered(save(chatId)),
    alone: (chatId: string) => db.transaction().execute(save(chatId)),
  };
  type Way = keyof typeof ways;
  const WAYS = Object.keys(ways) as Way[];

  /** µs per save with `savers` loops at once, each over its own chats. */
  async function measure(way: Way, savers: number): Promise<number> {
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
    `message saves on SQLite (WAL, background checkpoints), ${RANDOM_IDS ? 'random' : 'time-ordered'} message ids, ${SAVES} saves per case and round, ${ROUNDS} rounds, ways rotating; load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '  savers at once   run µs/save   gathered µs/save   alone µs/save   run / alone          gathered / alone',
  );
  const ratioText = (ratios: number[]) =>
    `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
  for (const savers of SAVERS) {
    const perSave: Record<Way, number[]> = { run: [], gathered: [], alone: [] };
    const ratios = { run: [] as number[], gathered: [] as number[] };
    for (const way of WAYS) await measure(way, savers);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Each way goes first, second and third in turn.
      const order = WAYS.map((_, index) => WAYS[(index + round) % WAYS.length] as Way);
      const timed = {} as Record<Way, number>;
      for (const way of order) timed[way] = await measure(way, savers);
      for (const way of WAYS) perSave[way].push(timed[way]);
      ratios.run.push(timed.run / timed.alone);
      ratios.gathered.push(timed.gathered / timed.alone);
    }
    console.log(
      `  ${String(savers).padStart(14)}   ${median(perSave.run).toFixed(1).padStart(11)}   ${median(perSave.gathered).toFixed(1).padStart(16)}   ${median(perSave.alone).toFixed(1).padStart(13)}   ${ratioText(ratios.run).padEnd(19)}  ${ratioText(ratios.gathered)}`,
    );
  }
} finally {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
}
