/**
 * The guard's protocol (shell-guard.ts): a command's group is registered at
 * once, its `del` rides along with the next `add` or goes out on its own after
 * the delay, always before an `add` of the same number, and only once.
 */
import { expect, test } from 'bun:test';
import { createGroupRegistry } from '../../../../../../src/services/tools/builtin/shell/shell-guard';

function recorder() {
  const writes: string[] = [];
  return { writes, write: (text: string) => writes.push(text) };
}

test('an add is written at once; the del waits for the next add and goes in the same write', () => {
  const { writes, write } = recorder();
  const registry = createGroupRegistry(write, 10_000);
  const releaseFirst = registry.add(101);
  expect(writes).toEqual(['add 101\n']);
  releaseFirst();
  releaseFirst();
  expect(writes).toEqual(['add 101\n']);
  const releaseSecond = registry.add(102);
  expect(writes).toEqual(['add 101\n', 'del 101\nadd 102\n']);
  releaseSecond();
  // A group number handed out again is unregistered before it is registered anew.
  registry.add(102);
  expect(writes.at(-1)).toBe('del 102\nadd 102\n');
});

test('without a next command, the dels waiting go out together after the delay', async () => {
  const { writes, write } = recorder();
  const registry = createGroupRegistry(write, 30);
  const releases = [registry.add(201), registry.add(202), registry.add(203)];
  for (const release of releases) release();
  expect(writes).toEqual(['add 201\n', 'add 202\n', 'add 203\n']);
  await Bun.sleep(80);
  expect(writes).toEqual(['add 201\n', 'add 202\n', 'add 203\n', 'del 201\ndel 202\ndel 203\n']);
  await Bun.sleep(60);
  expect(writes).toHaveLength(4);
});
