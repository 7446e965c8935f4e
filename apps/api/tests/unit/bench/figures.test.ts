/** The load bench's arithmetic (bench/load/figures.ts): percentiles, medians over rounds, and each server's share. */
import { describe, expect, test } from 'bun:test';
import { figuresOf, median, percentile, spreadOf } from '../../../../../bench/load/figures';
import type { RoundResult } from '../../../../../bench/load/load-client';

describe('percentile', () => {
  test('is the nearest rank, whatever the order of the samples', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile(values, 25)).toBe(3);
    expect(percentile(values, 0)).toBe(1);
  });

  test('of no samples is NaN', () => {
    expect(percentile([], 99)).toBeNaN();
  });
});

describe('median', () => {
  test('is the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('spreadOf', () => {
  test('gives the lowest, the quartiles and the highest', () => {
    // Eight rounds, one far out: the quartiles stay where most rounds are.
    expect(spreadOf([12, 30, 18, 161, 25, 20, 14, 28])).toEqual({
      min: 12,
      q1: 14,
      median: 22.5,
      q3: 28,
      max: 161,
    });
  });

  test('of one round is that round everywhere', () => {
    expect(spreadOf([7])).toEqual({ min: 7, q1: 7, median: 7, q3: 7, max: 7 });
  });

  test('of no rounds is NaN everywhere', () => {
    const spread = spreadOf([]);
    for (const value of Object.values(spread)) expect(value).toBeNaN();
  });
});

describe('figuresOf', () => {
  /** A round of the 200-turn case on `server`: its turns and direct sequences each at two values. */
  function round(server: number, added: { p50: number; p99: number }, main: number): RoundResult {
    const turn = { p50: 1_000 + added.p50, p99: 1_100 + added.p99 };
    const direct = { p50: 1_000, p99: 1_100 };
    return {
      type: 'round',
      concurrency: 200,
      round: 0,
      server,
      turn,
      direct,
      turnSamples: [turn.p50, turn.p99],
      directSamples: [direct.p50, direct.p99],
      serverTimedSamples: [],
      serverCpuPerTurn: main + 1,
      serverCpuPerTurnByThread: { main, JITWorker: 1 },
      benchCpu: { fakePerTurn: 2, clientPerTurn: 1, fakePerDirect: 2, clientPerDirect: 3 },
    };
  }

  test("gives the medians over every round and over each server's own", () => {
    // Rounds go to the servers in turn; the second server runs slow all its life.
    const rounds = [
      round(0, { p50: 5, p99: 12 }, 9),
      round(1, { p50: 9, p99: 30 }, 12),
      round(0, { p50: 6, p99: 16 }, 9.5),
      round(1, { p50: 8, p99: 26 }, 11),
      round(0, { p50: 4, p99: 14 }, 8.5),
    ];
    const figures = figuresOf(200, rounds, 2);
    expect(figures.addedP99).toBe(16);
    expect(figures.addedP50).toBe(6);
    expect(figures.byServer).toEqual([
      { rounds: 3, addedP50: 5, addedP99: 14, mainThreadPerTurn: 9 },
      { rounds: 2, addedP50: 8.5, addedP99: 28, mainThreadPerTurn: 11.5 },
    ]);
    expect(figures.addedP99Spread).toEqual({ min: 12, q1: 14, median: 16, q3: 26, max: 30 });
  });

  test('gives a server that ran no round no figures rather than zeros', () => {
    const figures = figuresOf(200, [round(0, { p50: 5, p99: 12 }, 9)], 2);
    expect(figures.byServer[1]?.rounds).toBe(0);
    expect(figures.byServer[1]?.addedP99).toBeNaN();
  });
});
