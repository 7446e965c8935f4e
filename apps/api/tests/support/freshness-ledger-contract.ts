/**
 * The behaviour every FileFreshnessLedger store must have (docs/tools/filesystem.md#the-freshness-ledger), as one
 * suite: the in-memory store runs it now, the database store runs the same.
 * `createLedger` returns a ledger for one chat; two calls with the same chat
 * id must see the same records, different chat ids must not.
 */
import { describe, expect, test } from 'bun:test';
import {
  checkFreshness,
  recordFileRead,
  sha256Hex,
} from '../../src/services/tools/freshness/read-before-write';
import type { FileFreshnessLedger, FileReadRecord } from '../../src/services/tools/types';

export type LedgerFactory = (chatId: string) => FileFreshnessLedger | Promise<FileFreshnessLedger>;

const record: FileReadRecord = {
  sha256: 'a'.repeat(64),
  size: 10,
  mtimeMs: 1_700_000_000_123.456,
  complete: false,
  linesCovered: 3,
  totalLines: 9,
  laterWindows: [{ startLine: 5, endLine: 6 }],
};

function observation(overrides: Partial<Parameters<typeof recordFileRead>[2]> = {}) {
  return {
    sha256: 'b'.repeat(64),
    size: 40,
    mtimeMs: 1000,
    totalLines: 10,
    wholeFile: false,
    ...overrides,
  };
}

let sequence = 0;
function uniquePath(): string {
  sequence += 1;
  return `/ledger-contract/${Date.now()}-${sequence}/file.txt`;
}

export function describeFreshnessLedgerContract(name: string, createLedger: LedgerFactory): void {
  describe(`freshness ledger contract: ${name}`, () => {
    test('stores and returns records by real path, per chat', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-a');
      expect(await ledger.get(path)).toBeUndefined();
      await ledger.set(path, record);
      expect(await ledger.get(path)).toEqual(record);
      expect(await (await createLedger('chat-a')).get(path)).toEqual(record);
      expect(await (await createLedger('chat-b')).get(path)).toBeUndefined();
      expect(await ledger.get(`${path}.other`)).toBeUndefined();
    });

    test('returns copies: changing a returned record changes nothing stored', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-copy');
      await ledger.set(path, record);
      const copy = (await ledger.get(path)) as FileReadRecord;
      copy.complete = true;
      copy.laterWindows?.push({ startLine: 8, endLine: 9 });
      expect(await ledger.get(path)).toEqual(record);
    });

    test('set replaces and delete forgets', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-replace');
      await ledger.set(path, record);
      const { laterWindows: _dropped, ...plain } = record;
      await ledger.set(path, { ...plain, complete: true, linesCovered: 9 });
      expect(await ledger.get(path)).toEqual({ ...plain, complete: true, linesCovered: 9 });
      await ledger.delete(path);
      expect(await ledger.get(path)).toBeUndefined();
    });

    test('withLock serialises tasks on one path and returns their results', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-lock');
      const events: string[] = [];
      const task = (label: string) => async () => {
        events.push(`${label} start`);
        await Bun.sleep(5);
        events.push(`${label} end`);
        return label;
      };
      const results = await Promise.all([
        ledger.withLock(path, task('one')),
        ledger.withLock(path, task('two')),
      ]);
      expect(results).toEqual(['one', 'two']);
      expect(events).toEqual(['one start', 'one end', 'two start', 'two end']);
    });

    test('a failed task does not block the next one', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-lock-failure');
      const failing = ledger.withLock(path, async () => {
        throw new Error('boom');
      });
      await expect(failing).rejects.toThrow('boom');
      expect(await ledger.withLock(path, async () => 'next')).toBe('next');
    });

    test('text windows add up in any order; a new hash starts over', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-windows');
      await recordFileRead(ledger, path, observation({ startLine: 4, endLine: 6 }));
      expect(await ledger.get(path)).toMatchObject({ complete: false, linesCovered: 0 });
      await recordFileRead(ledger, path, observation({ startLine: 1, endLine: 3 }));
      expect(await ledger.get(path)).toMatchObject({ complete: false, linesCovered: 6 });
      await recordFileRead(ledger, path, observation({ startLine: 7, endLine: 10 }));
      expect(await ledger.get(path)).toMatchObject({ complete: true, linesCovered: 10 });
      await recordFileRead(
        ledger,
        path,
        observation({ sha256: 'c'.repeat(64), startLine: 1, endLine: 2 }),
      );
      expect(await ledger.get(path)).toMatchObject({ complete: false, linesCovered: 2 });
    });

    test('a byte view is complete at once', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-bytes');
      await recordFileRead(ledger, path, observation({ totalLines: 0, wholeFile: true }));
      expect((await ledger.get(path))?.complete).toBe(true);
    });

    test('freshness: fast path on size and mtime, re-hash otherwise', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-fresh');
      const content = new TextEncoder().encode('hello');
      const sha256 = sha256Hex(content);
      expect(
        (await checkFreshness(ledger, path, { size: 5, mtimeMs: 1, bytes: async () => content }))
          .status,
      ).toBe('not_read');
      await recordFileRead(
        ledger,
        path,
        observation({ sha256, size: 5, mtimeMs: 1, totalLines: 1, startLine: 1, endLine: 1 }),
      );
      let hashed = 0;
      const bytes = (value: Uint8Array) => async () => {
        hashed += 1;
        return value;
      };
      expect(
        (await checkFreshness(ledger, path, { size: 5, mtimeMs: 1, bytes: bytes(content) })).status,
      ).toBe('fresh');
      expect(hashed).toBe(0);
      expect(
        (await checkFreshness(ledger, path, { size: 5, mtimeMs: 2, bytes: bytes(content) })).status,
      ).toBe('fresh');
      expect(hashed).toBe(1);
      expect((await ledger.get(path))?.mtimeMs).toBe(2);
      const changed = new TextEncoder().encode('HELLO');
      expect(
        (await checkFreshness(ledger, path, { size: 5, mtimeMs: 3, bytes: bytes(changed) })).status,
      ).toBe('stale');
    });

    test('a partial read is reported as partial', async () => {
      const path = uniquePath();
      const ledger = await createLedger('chat-partial');
      await recordFileRead(ledger, path, observation({ startLine: 1, endLine: 4 }));
      const verdict = await checkFreshness(ledger, path, {
        size: 40,
        mtimeMs: 1000,
        bytes: async () => new Uint8Array(),
      });
      expect(verdict.status).toBe('partial');
    });
  });
}
