import { afterAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { readFile } from '../../../../../src/services/tools/builtin/read-file';
import {
  FileOverCapError,
  openRegularFile,
  readAllCappedLeased,
} from '../../../../../src/services/tools/fs/capped-read';
import { createTempTree } from '../../../../support/temp-tree';
import { createTestToolContext } from '../../../../support/tool-context';

const tree = createTempTree('mango-pool');
afterAll(() => tree.remove());

const MiB = 1024 * 1024;
const CAP = 10 * MiB;

function makeFile(name: string, size: number, fill: number): string {
  tree.add({ [name]: Buffer.alloc(size, fill) });
  return tree.at(name);
}

async function lease(file: string, cap = CAP) {
  const { handle, stats } = await openRegularFile(file);
  try {
    return await readAllCappedLeased(handle, cap, stats.size);
  } finally {
    await handle.close();
  }
}

describe('pooled capped reads', () => {
  const large = makeFile('large.bin', 3 * MiB, 0x61);
  const smaller = makeFile('smaller.bin', 2 * MiB + 5, 0x62);

  test('a released buffer is reused, and the next read sees only its own bytes', async () => {
    const first = await lease(large);
    const firstMemory = first.bytes.buffer;
    expect(first.bytes.length).toBe(3 * MiB);
    first.release();
    const second = await lease(smaller);
    try {
      expect(second.bytes.buffer).toBe(firstMemory);
      expect(second.bytes.length).toBe(2 * MiB + 5);
      expect(second.bytes.every((byte) => byte === 0x62)).toBe(true);
    } finally {
      second.release();
    }
  });

  test('leases held at the same time never share memory', async () => {
    const one = await lease(large);
    const two = await lease(large);
    try {
      expect(one.bytes.buffer).not.toBe(two.bytes.buffer);
      two.bytes[0] = 0x7a;
      expect(one.bytes[0]).toBe(0x61);
    } finally {
      one.release();
      two.release();
    }
  });

  test('releasing twice does not put one buffer in the pool twice', async () => {
    const one = await lease(large);
    one.release();
    one.release();
    const a = await lease(large);
    const b = await lease(large);
    try {
      expect(a.bytes.buffer).not.toBe(b.bytes.buffer);
    } finally {
      a.release();
      b.release();
    }
  });

  test('an over-cap read still returns its buffer and later reads work', async () => {
    await expect(lease(large, 2 * MiB)).rejects.toBeInstanceOf(FileOverCapError);
    const after = await lease(smaller);
    try {
      expect(after.bytes.length).toBe(2 * MiB + 5);
    } finally {
      after.release();
    }
  });

  test('concurrent read_file calls on different large files each hash their own file', async () => {
    const files = [0x31, 0x32, 0x33, 0x34].map((fill, index) =>
      makeFile(`text-${index}.txt`, 4 * MiB + index, fill),
    );
    const context = createTestToolContext();
    const results = await Promise.all(files.map((file) => readFile({ path: file }, context)));
    results.forEach((result, index) => {
      const expected = createHash('sha256')
        .update(Buffer.alloc(4 * MiB + index, [0x31, 0x32, 0x33, 0x34][index] as number))
        .digest('hex');
      expect(result.sha256).toBe(expected);
      expect(result.size).toBe(4 * MiB + index);
    });
  });
});
