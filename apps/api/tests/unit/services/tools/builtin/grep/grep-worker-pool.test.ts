import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  FileStatus,
  taskPathsOf,
} from '../../../../../../src/services/tools/builtin/grep/grep-protocol';
import {
  createGrepWorkerPool,
  type GrepWorkerPool,
} from '../../../../../../src/services/tools/builtin/grep/grep-worker-pool';
import { requiredLiteralsOf } from '../../../../../../src/services/tools/builtin/grep/required-literal';
import { createTempTree, type TempTree } from '../../../../../support/temp-tree';
import { waitUntil } from '../../../../../support/wait-until';

let tree: TempTree;
let pool: GrepWorkerPool;

beforeAll(() => {
  tree = createTempTree('grep-worker-pool', {
    'evil.txt': `${'a'.repeat(4000)}!\n`.repeat(40),
    'plain.txt': 'alpha\nbeta\nalphabet\n',
    'binary.bin': Buffer.from([0x61, 0x6c, 0, 0x70]),
  });
  pool = createGrepWorkerPool(1);
});

afterAll(() => {
  pool.close();
  tree.remove();
});

const job = (source: string, deadlineMs = 60_000, on: GrepWorkerPool = pool) =>
  on.createJob({
    source,
    caseInsensitive: false,
    requiredLiterals: requiredLiteralsOf(source, false),
    perFileLimit: 10,
    maxFileSizeBytes: 1024 * 1024,
    deadline: Date.now() + deadlineMs,
  });

describe('grep worker pool', () => {
  test('a task reports per-file statuses and matches in order', async () => {
    const search = job('^alpha');
    const result = await search.run(
      taskPathsOf([tree.at('plain.txt'), tree.at('binary.bin'), tree.at('missing')]),
    );
    search.finish();
    expect([...result.statuses]).toEqual([
      FileStatus.scanned,
      FileStatus.binary,
      FileStatus.unreadable,
    ]);
    expect(result.found).toEqual([
      {
        index: 0,
        matches: [
          { line: 1, text: 'alpha' },
          { line: 3, text: 'alphabet' },
        ],
        slowLines: [],
      },
    ]);
    expect(result.interrupted).toBeUndefined();
  });

  test('finishing a job stuck in a regex stops its worker; another search queued behind it still completes', async () => {
    const stuck = job('(a+)+$');
    const stuckResult = stuck.run(taskPathsOf([tree.at('evil.txt')]));
    const other = job('beta');
    const otherResult = other.run(taskPathsOf([tree.at('plain.txt')]));
    // Wait until the worker is inside the stuck file.
    expect(await waitUntil(() => stuck.fileInProgress() !== undefined, 10_000)).toBe(true);
    expect(stuck.fileInProgress()).toBe(tree.at('evil.txt'));
    stuck.finish();
    const stopped = await stuckResult;
    // Stopped either between two regex calls (cancelled) or by termination (worker_stopped).
    expect(['cancelled', 'worker_stopped']).toContain(stopped.interrupted as string);
    const completed = await otherResult;
    other.finish();
    expect(completed.interrupted).toBeUndefined();
    expect(completed.found[0]?.matches).toEqual([{ line: 2, text: 'beta' }]);
  });

  test('finishing a search withdraws its tasks no worker has started, and leaves the running one be', async () => {
    const stuck = job('(a+)+$');
    const stuckResult = stuck.run(taskPathsOf([tree.at('evil.txt')]));
    expect(await waitUntil(() => stuck.fileInProgress() !== undefined, 10_000)).toBe(true);
    // Posted to the only worker, which is busy: nobody has claimed it.
    const other = job('beta');
    const waiting = other.run(taskPathsOf([tree.at('plain.txt')]));
    other.finish();
    const withdrawn = await waiting;
    expect(withdrawn.interrupted).toBe('cancelled');
    expect([...withdrawn.statuses]).toEqual([FileStatus.notScanned]);
    // The worker was not stopped for it: still inside the stuck file.
    expect(stuck.fileInProgress()).toBe(tree.at('evil.txt'));
    stuck.finish();
    expect(['cancelled', 'worker_stopped']).toContain((await stuckResult).interrupted as string);
  });

  test('tasks go to whichever worker is free, in order: none waits behind a stuck one', async () => {
    const pair = createGrepWorkerPool(2);
    try {
      const stuck = job('(a+)+$', 60_000, pair);
      const stuckResult = stuck.run(taskPathsOf([tree.at('evil.txt')]));
      const other = job('beta', 60_000, pair);
      const results = Promise.all(
        Array.from({ length: 4 }, () => other.run(taskPathsOf([tree.at('plain.txt')]))),
      );
      const completed = await Promise.race([results, Bun.sleep(5_000).then(() => 'timed out')]);
      // Every one of them ran on the free worker while the stuck task still ran on the other.
      expect(stuck.fileInProgress()).toBe(tree.at('evil.txt'));
      expect(completed).not.toBe('timed out');
      for (const result of completed as Awaited<typeof results>) {
        expect(result.interrupted).toBeUndefined();
        expect(result.found[0]?.matches).toEqual([{ line: 2, text: 'beta' }]);
      }
      other.finish();
      stuck.finish();
      expect(['cancelled', 'worker_stopped']).toContain((await stuckResult).interrupted as string);
    } finally {
      pair.close();
    }
  }, 20_000);

  test('a job past its deadline is stopped by the pool even while its regex runs', async () => {
    const overdue = job('(a+)+$', 100);
    const result = await overdue.run(taskPathsOf([tree.at('evil.txt'), tree.at('plain.txt')]));
    overdue.finish();
    expect(result.interrupted).toBeDefined();
    expect(result.statuses[1]).toBe(FileStatus.notScanned);
  });

  test('closing the pool ends every task it holds, posted or queued', async () => {
    const lone = createGrepWorkerPool(1);
    const stuck = job('(a+)+$', 60_000, lone);
    // One running, and more than the worker's three posted ones, so some stay queued.
    const results = Array.from({ length: 5 }, () => stuck.run(taskPathsOf([tree.at('evil.txt')])));
    expect(await waitUntil(() => stuck.fileInProgress() !== undefined, 10_000)).toBe(true);
    lone.close();
    for (const result of await Promise.all(results)) {
      expect(result.interrupted).toBe('worker_stopped');
    }
    stuck.finish();
  });

  test('a finished job runs nothing more', async () => {
    const done = job('alpha');
    done.finish();
    const result = await done.run(taskPathsOf([tree.at('plain.txt')]));
    expect(result.interrupted).toBe('cancelled');
    expect(result.found).toEqual([]);
  });
});
