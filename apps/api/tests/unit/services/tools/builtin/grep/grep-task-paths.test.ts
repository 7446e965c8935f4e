import { describe, expect, test } from 'bun:test';
import {
  packTaskPaths,
  unpackTaskPaths,
} from '../../../../../../src/services/tools/builtin/grep/grep-protocol';

describe('task paths packed into one string', () => {
  test('give back the same paths in the same order, names with spaces, newlines and "/" roots included', () => {
    const files = ['/repo/src/a.ts', '/repo/src/b c.ts', '/repo/x\ny.ts', '/top', '/repo/src/a.ts'];
    const packed = packTaskPaths(files);
    expect(typeof packed).toBe('string');
    expect(unpackTaskPaths(packed)).toEqual(files);
  });

  test('an empty task stays empty', () => {
    expect(unpackTaskPaths(packTaskPaths([]))).toEqual([]);
  });
});
