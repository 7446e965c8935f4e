/** The shapes shared by the shell tools (docs/tools/shell.md#shell-tools): interpreters and command results. */

export type ShellName = 'bash' | 'zsh' | 'powershell';

/** How a command ended. A non-zero exit is `exited`; a parent abort is never `timed_out`. */
export type ShellTermination = 'exited' | 'timed_out' | 'aborted' | 'signalled';

/** One interpreter found on this machine: what to start and how to hand it a command. */
export interface ShellInterpreter {
  shell: ShellName;
  /** Absolute path of the executable, as found at registration. */
  executable: string;
  /** The arguments that make the interpreter run `command` and exit. */
  commandArguments(command: string): string[];
}

export interface ShellCommandResult {
  shell: ShellName;
  command: string;
  /** The directory the command ran in (absolute). */
  cwd: string;
  /** null when the process did not exit by itself (timed out, aborted, killed by a signal). */
  exitCode: number | null;
  /** The signal that ended the shell (`SIGKILL`, …), or null when it exited. */
  signal: string | null;
  /** Head and tail of standard output; a marker in the middle says how many bytes were dropped. */
  stdout: string;
  stderr: string;
  /** True when either stream was longer than the per-stream cap. */
  truncated: boolean;
  /** Bytes left out of stdout and stderr together (0 when nothing was dropped). */
  droppedBytes: number;
  durationMs: number;
  termination: ShellTermination;
  /** True when the command ran inside the bubblewrap sandbox. */
  sandboxed: boolean;
  /** Why it ran without the sandbox (bubblewrap missing or not working here, or switched off). */
  unsandboxedReason?: string;
  /** Processes of this command that could not be killed (present only when there are any). */
  survivingPids?: number[];
}
