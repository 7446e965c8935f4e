import { expect, test } from 'bun:test';
import { lazySdkClient } from '../../../../../src/services/providers/shared/lazy-sdk-client';

test('the client is made once, on the first call, however many callers ask at once', async () => {
  let made = 0;
  const client = lazySdkClient(async () => {
    made += 1;
    await Bun.sleep(5);
    return { id: made };
  });
  expect(made).toBe(0);
  const [first, second] = await Promise.all([client(), client()]);
  expect(first).toBe(second);
  expect(await client()).toBe(first);
  expect(made).toBe(1);
});

test('a failed attempt is not kept: the caller gets its error and the next call tries again', async () => {
  let attempts = 0;
  const client = lazySdkClient(async () => {
    attempts += 1;
    if (attempts === 1) throw new Error('the SDK could not be loaded');
    return { attempt: attempts };
  });
  await expect(client()).rejects.toThrow('the SDK could not be loaded');
  expect(await client()).toEqual({ attempt: 2 });
  expect(await client()).toEqual({ attempt: 2 });
  expect(attempts).toBe(2);
});
