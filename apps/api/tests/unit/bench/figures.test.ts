/** The load bench's arithmetic (bench/load/figures.ts). */
import { describe, expect, test } from 'bun:test';
import { median, percentile, spreadOf } from '../../../../../bench/load/figures';

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
