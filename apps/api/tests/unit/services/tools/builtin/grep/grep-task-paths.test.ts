import { describe, expect, test } from 'bun:test';
import {
  packTaskPaths,
  TaskPathPacker,
  taskPathsOf,
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

  test('the packer, fed directories and names as the walk finds them, packs what packTaskPaths packs', () => {
    const src = '/repo/src';
    const files = [
      '/repo/src/a.ts',
      '/repo/src/b c.ts',
      '/repo/src/deep/c.ts',
      '/top',
      '/repo/src/d.ts',
    ];
    const packer = new TaskPathPacker();
    packer.add(src, 'a.ts');
    packer.add(src, 'b c.ts');
    packer.add(`${src}/deep`, 'c.ts');
    packer.add('/', 'top');
    // A link's target comes as a whole path.
    packer.addPath('/repo/src/d.ts');
    const taken = packer.take();
    expect(taken.count).toBe(5);
    expect(unpackTaskPaths(taken.packed)).toEqual(files);
    expect(taken).toEqual(taskPathsOf(files));
    // Each run of one directory names it once.
    expect(taken.packed.split('\0').filter((item) => item.endsWith('/'))).toEqual([
      '/repo/src/',
      '/repo/src/deep/',
      '/',
      '/repo/src/',
    ]);
  });

  test('take() starts the packer empty again, and a directory is named again in the next task', () => {
    const packer = new TaskPathPacker();
    packer.add('/a', 'x');
    packer.take();
    expect(packer.count).toBe(0);
    packer.add('/a', 'y');
    expect(unpackTaskPaths(packer.take().packed)).toEqual(['/a/y']);
    expect(packer.take()).toEqual({ count: 0, packed: '' });
    expect(unpackTaskPaths('')).toEqual([]);
  });
});
