/** raceTimeout (race-timeout.ts): the value when it comes first, the marker when time runs out first. */
import { expect, test } from 'bun:test';
import { raceTimeout } from '../../src/race-timeout';

test('a promise that settles in time gives its value', async () => {
  expect(
    await raceTimeout(
      Bun.sleep(5).then(() => 'done'),
      200,
      'late',
    ),
  ).toBe('done');
});

test('a promise still pending when the time is up gives the marker', async () => {
  const started = performance.now();
  expect(await raceTimeout(new Promise(() => {}), 30, 'late')).toBe('late');
  expect(performance.now() - started).toBeGreaterThanOrEqual(25);
});

test('a rejection in time rejects the race', async () => {
  await expect(raceTimeout(Promise.reject(new Error('broken')), 200, 'late')).rejects.toThrow(
    'broken',
  );
});
