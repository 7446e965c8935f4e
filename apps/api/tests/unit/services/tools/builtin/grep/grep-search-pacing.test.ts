import { describe, expect, test } from 'bun:test';
import {
  filesStillNeeded,
  maxFilesInFlight,
  nextTaskFiles,
} from '../../../../../../src/services/tools/builtin/grep/grep-search';

describe('how a capped grep paces its tasks', () => {
  test('before the first match nothing is known, and tasks double up to 256 files', () => {
    expect(filesStillNeeded(100, 0, 5000)).toBe(Number.POSITIVE_INFINITY);
    expect(maxFilesInFlight(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    const sizes = [16];
    while (sizes.length < 7) {
      sizes.push(nextTaskFiles(sizes.at(-1) as number, Number.POSITIVE_INFINITY, 2));
    }
    expect(sizes).toEqual([16, 32, 64, 128, 256, 256, 256]);
  });

  test('the match rate so far says how many files the answer still needs', () => {
    // 20 matches in 80 files: one every 4 files; 81 more matches (to know the cap is passed).
    expect(filesStillNeeded(100, 20, 80)).toBe(324);
    expect(filesStillNeeded(100, 101, 400)).toBe(0);
  });

  test('near the cap, tasks shrink to a worker’s share of what is still needed', () => {
    expect(nextTaskFiles(256, 324, 2)).toBe(162);
    expect(nextTaskFiles(64, 324, 2)).toBe(128);
    // Never below the first task's size, whatever the estimate.
    expect(nextTaskFiles(256, 3, 2)).toBe(16);
  });

  test('the files in flight are bounded by one and a half times the estimate, with a floor', () => {
    expect(maxFilesInFlight(324)).toBe(486);
    expect(maxFilesInFlight(0)).toBe(64);
  });
});
