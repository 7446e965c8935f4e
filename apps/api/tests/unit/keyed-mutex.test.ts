import { expect, test } from 'bun:test';
import { createKeyedMutex } from '../../src/keyed-mutex';

test('tasks of one key run one after another; other keys do not wait; a failure does not block', async () => {
  const withLock = createKeyedMutex();
  const order: string[] = [];
  let releaseFirst: () => void = () => {};
  const first = withLock('a', async () => {
    order.push('a1 start');
    await new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    order.push('a1 end');
    throw new Error('a1 failed');
  });
  const second = withLock('a', async () => {
    order.push('a2');
    return 'a2 done';
  });
  const other = await withLock('b', async () => {
    order.push('b');
    return 'b done';
  });
  expect(other).toBe('b done');
  expect(order).toEqual(['a1 start', 'b']);
  releaseFirst();
  await expect(first).rejects.toThrow('a1 failed');
  expect(await second).toBe('a2 done');
  expect(order).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
});
