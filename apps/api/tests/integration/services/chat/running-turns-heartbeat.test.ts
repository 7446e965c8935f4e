/**
 * The database running-turns store's heartbeat (running-turns.ts): one beat
 * refreshes every claim the instance holds and reads every cancel flag, a
 * cancel set from another instance stops only its own turn, a claim another
 * instance took over is left alone, and the beat stops with the last claim.
 */
import { expect, test } from 'bun:test';
import { createChatRepository } from '../../../../src/services/chat/chat-repository';
import {
  CLAIMS_PER_BEAT_STATEMENT,
  createDatabaseRunningTurns,
} from '../../../../src/services/chat/running-turns';
import { describeEachDatabase } from '../../../support/test-databases';
import { insertTestUser } from '../../../support/test-rows';
import { waitUntil } from '../../../support/wait-until';

describeEachDatabase('the running-turns heartbeat', (_kind, current) => {
  async function newChats(count: number): Promise<string[]> {
    const { database } = current();
    const userId = await insertTestUser(database);
    const chats = createChatRepository(database);
    const ids: string[] = [];
    for (let index = 0; index < count; index++)
      ids.push(
        (
          await chats.create(userId, {
            title: `Heartbeat ${index}`,
            mode: 'chat',
            workingDirectory: null,
            restrictToWorkingDirectory: true,
            model: 'openai:gpt-5',
          })
        ).id,
      );
    return ids;
  }

  const stamp = (value: unknown) => new Date(value as string | Date).getTime();
  const heartbeats = async (chatIds: string[]) => {
    const rows = await current()
      .database.db.selectFrom('chat_turns')
      .select(['chat_id', 'turn_id', 'heartbeat_at'])
      .where('chat_id', 'in', chatIds)
      .execute();
    return new Map(rows.map((row) => [row.chat_id, row]));
  };

  test('every claim is refreshed by each beat; a cancel from elsewhere stops only its turn', async () => {
    const { database } = current();
    const chatIds = await newChats(3);
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const here = createDatabaseRunningTurns(database, { heartbeatMs: 20, now: () => clock });
    const elsewhere = createDatabaseRunningTurns(database, { now: () => clock });
    const claims = await Promise.all(
      chatIds.map((chatId, index) => here.begin(chatId, `turn-heartbeat-${chatId}-${index}`)),
    );
    expect(claims.every((claim) => claim !== undefined)).toBe(true);
    clock += 5_000;
    const refreshed = await waitUntil(async () =>
      [...(await heartbeats(chatIds)).values()].every((row) => stamp(row.heartbeat_at) === clock),
    );
    expect(refreshed).toBe(true);
    expect(await elsewhere.cancel(chatIds[1] as string)).toBe(true);
    expect(await waitUntil(async () => claims[1]?.signal.aborted === true)).toBe(true);
    await Bun.sleep(60);
    expect(claims[0]?.signal.aborted).toBe(false);
    expect(claims[2]?.signal.aborted).toBe(false);
    for (const claim of claims) await claim?.end();
    expect((await heartbeats(chatIds)).size).toBe(0);
  });

  test('a chat another instance claimed since is not refreshed; the beat stops with the last claim', async () => {
    const { database } = current();
    const [mineId, takenId] = await newChats(2);
    let clock = Date.parse('2026-02-01T00:00:00Z');
    const here = createDatabaseRunningTurns(database, { heartbeatMs: 20, now: () => clock });
    const mine = await here.begin(mineId as string, `turn-mine-${mineId}`);
    const taken = await here.begin(takenId as string, `turn-taken-${takenId}`);
    // Another instance found this claim stale and took the chat over with a turn of its own.
    await database.db
      .updateTable('chat_turns')
      .set({ turn_id: `turn-other-${takenId}`, heartbeat_at: '2026-02-01T00:00:00.000Z' })
      .where('chat_id', '=', takenId as string)
      .execute();
    clock += 7_000;
    expect(
      await waitUntil(
        async () =>
          stamp((await heartbeats([mineId as string])).get(mineId as string)?.heartbeat_at) ===
          clock,
      ),
    ).toBe(true);
    const other = (await heartbeats([takenId as string])).get(takenId as string);
    expect(other?.turn_id).toBe(`turn-other-${takenId}`);
    expect(stamp(other?.heartbeat_at)).toBe(Date.parse('2026-02-01T00:00:00Z'));
    await mine?.end();
    await taken?.end();
    // No claim left: nothing beats any more.
    await database.db
      .insertInto('chat_turns')
      .values({
        chat_id: mineId as string,
        turn_id: 'turn-not-ours',
        started_at: '2026-02-01T00:00:00.000Z',
        heartbeat_at: '2026-02-01T00:00:00.000Z',
        cancel_requested: false,
        instance_id: null,
      })
      .execute();
    clock += 1_000;
    await Bun.sleep(80);
    const untouched = (await heartbeats([mineId as string])).get(mineId as string);
    expect(stamp(untouched?.heartbeat_at)).toBe(Date.parse('2026-02-01T00:00:00Z'));
  });

  test(`more claims than one statement carries (${CLAIMS_PER_BEAT_STATEMENT}) are all refreshed`, async () => {
    const { database } = current();
    const count = CLAIMS_PER_BEAT_STATEMENT + 3;
    const chatIds = await newChats(count);
    let clock = Date.parse('2026-03-01T00:00:00Z');
    const here = createDatabaseRunningTurns(database, { heartbeatMs: 20, now: () => clock });
    const claims = [];
    for (const chatId of chatIds) claims.push(await here.begin(chatId, `turn-many-${chatId}`));
    clock += 3_000;
    expect(
      await waitUntil(async () =>
        [...(await heartbeats(chatIds)).values()].every((row) => stamp(row.heartbeat_at) === clock),
      ),
    ).toBe(true);
    for (const claim of claims) await claim?.end();
  }, 60_000);
});
