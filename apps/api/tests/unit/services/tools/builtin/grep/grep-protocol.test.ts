import { describe, expect, test } from 'bun:test';
import {
  decodeTaskPaths,
  encodeTaskPaths,
} from '../../../../../../src/services/tools/builtin/grep/grep-protocol';

describe('grep task path packing', () => {
  test('names each directory once and gives back the same paths in the same order', () => {
    const files = [
      '/repo/src/a.ts',
      '/repo/src/b.ts',
      '/repo/src/deep/c.ts',
      '/repo/src/d.ts',
      '/repo/src/d.ts',
      '/top',
      '/repo/weird name with spaces.ts',
    ];
    const packed = encodeTaskPaths(files);
    expect(packed).toEqual([
      '/repo/src/',
      'a.ts',
      'b.ts',
      '/repo/src/deep/',
      'c.ts',
      '/repo/src/',
      'd.ts',
      'd.ts',
      '/',
      'top',
      '/repo/',
      'weird name with spaces.ts',
    ]);
    expect(decodeTaskPaths(packed)).toEqual(files);
  });

  test('keeps names that look special and paths outside any directory', () => {
    const files = ['/a/\\b', '/a/.hidden', '/a/ü.ts', 'bare-name', '/a/b'];
    const decoded = decodeTaskPaths(encodeTaskPaths(files));
    expect(decoded.slice(0, 3)).toEqual(files.slice(0, 3));
    // A bare name is given the directory "./", which names the same file.
    expect(decoded[3]).toBe('./bare-name');
    expect(decoded[4]).toBe('/a/b');
    expect(decodeTaskPaths(encodeTaskPaths([]))).toEqual([]);
  });
});
