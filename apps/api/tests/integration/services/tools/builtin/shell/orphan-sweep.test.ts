/**
 * The orphan sweep (docs/tools/shell.md#when-the-server-dies) on real processes: a process whose
 * marker names a server that is gone is killed; one whose server runs, one
 * whose marker comes from another pid namespace, and one without a marker
 * are left alone.
 */
import { afterAll, expect, test } from 'bun:test';
import {
  currentServerIdentity,
  SHELL_SERVER_MARKER_VARIABLE,
  sweepOrphanedShellProcesses,
} from '../../../../../../src/services/tools/builtin/shell/shell-guard';
import { isRunning } from '../../../../../support/processes';
import { waitUntil } from '../../../../../support/wait-until';

const started: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await Promise.all(started.map((child) => child.exited));
});

function sleeper(marker?: string): Bun.Subprocess {
  const child = Bun.spawn(['sleep', '60'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...(marker ? { [SHELL_SERVER_MARKER_VARIABLE]: marker } : {}),
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  started.push(child);
  return child;
}

test('a process of a server that is gone is killed; the others are left alone', async () => {
  // A server that was: a process that has exited, named in this namespace.
  const gone = Bun.spawn(['true']);
  await gone.exited;
  const namespace = currentServerIdentity().split('.')[0];
  const orphan = sleeper(`${namespace}.${gone.pid}.0`);
  const ours = sleeper(currentServerIdentity());
  const foreign = sleeper(`pid1.${gone.pid}.0`);
  const unmarked = sleeper();
  // The marker is in the environment once sleep has exec'd.
  await Bun.sleep(100);

  const killed = sweepOrphanedShellProcesses();
  expect(killed).toContain(orphan.pid);
  expect(killed).not.toContain(ours.pid);
  expect(await waitUntil(() => !isRunning(orphan.pid), 2_000)).toBe(true);
  expect([ours, foreign, unmarked].map((child) => isRunning(child.pid))).toEqual([
    true,
    true,
    true,
  ]);
});
