/**
 * Clean-up that outlives the test process: `bun test` emits no `exit` event,
 * and a run stopped with Ctrl-C, killed, or started where the preload's
 * run-wide teardown is not loaded would otherwise leave its PostgreSQL server
 * running and its temp directories behind. A detached shell waits for this
 * process to end and then runs the given commands; the normal teardown cancels
 * it first and cleans up itself.
 */
import { spawn } from 'node:child_process';

export interface Watchdog {
  /** The process is cleaning up itself: the watchdog leaves without doing anything. */
  cancel(): void;
}

/** Single-quotes `value` for the shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Runs `commands` (argument vectors, in order, failures ignored) once this process has ended. */
export function runWhenProcessEnds(commands: string[][]): Watchdog {
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done`,
    ...commands.map((command) => `${command.map(shellQuote).join(' ')} >/dev/null 2>&1`),
  ].join('\n');
  // Its own session, so the Ctrl-C that stops the run does not stop the watchdog too.
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return {
    cancel: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
