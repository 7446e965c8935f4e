import { describe, expect, test } from 'bun:test';
import type { ProcessStatus } from '../../../../../../src/services/tools/builtin/shell/process-table';
import {
  type KnownProcesses,
  selectLeftovers,
} from '../../../../../../src/services/tools/builtin/shell/process-tree';

const ROOT = 4000;

function status(pid: number, ppid: number, pgid: number, state = 'S'): ProcessStatus {
  return { pid, ppid, pgid, state, startTime: String(pid * 10) };
}

function select(
  statuses: ProcessStatus[],
  options: { known?: KnownProcesses; marked?: number[] } = {},
): number[] {
  const marked = new Set(options.marked ?? []);
  return selectLeftovers(statuses, {
    rootPid: ROOT,
    known: options.known ?? new Map(),
    hasMarker: (pid) => marked.has(pid),
  })
    .map((found) => found.pid)
    .sort((a, b) => a - b);
}

describe('selectLeftovers: what a finished shell left behind', () => {
  test('descendants by parent links, through the root and through known processes', () => {
    const known: KnownProcesses = new Map([[4010, '40100']]);
    const statuses = [
      status(ROOT, 1, ROOT),
      status(4001, ROOT, ROOT),
      status(4002, 4001, 4002),
      status(4010, 1, 4010),
      status(4011, 4010, 4010),
      status(5000, 1, 5000),
    ];
    expect(select(statuses, { known })).toEqual([ROOT, 4001, 4002, 4010, 4011]);
  });

  test('a known pid whose start time changed is a different process and is left alone', () => {
    const known: KnownProcesses = new Map([[4010, 'someone else']]);
    expect(select([status(4010, 1, 4010)], { known })).toEqual([]);
  });

  test('a member of the group counts with no parent link and no readable marker (a child caught mid-exec)', () => {
    expect(select([status(4003, 1, ROOT), status(5000, 1, 5000)])).toEqual([4003]);
  });

  test('a process that escaped the group and its parent counts by its marker', () => {
    expect(select([status(4004, 1, 4004), status(5000, 1, 5000)], { marked: [4004] })).toEqual([
      4004,
    ]);
  });

  test('zombies and dead processes are never targets, the root included', () => {
    const statuses = [
      status(ROOT, 1, ROOT, 'Z'),
      status(4001, 1, ROOT, 'Z'),
      status(4002, 1, ROOT, 'X'),
      status(4003, 1, ROOT, 'R'),
    ];
    expect(select(statuses)).toEqual([4003]);
  });
});
