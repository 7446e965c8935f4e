import { expect, test } from 'bun:test';
import { createRowId } from '../../../src/db/row-ids';

test('a row id is its prefix and 32 hex digits, and later ids sort after earlier ones', async () => {
  const ids: string[] = [];
  for (let index = 0; index < 500; index += 1) {
    ids.push(createRowId('msg'));
    // Across milliseconds too, not only within one.
    if (index % 100 === 0) await Bun.sleep(2);
  }
  for (const id of ids) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
});
