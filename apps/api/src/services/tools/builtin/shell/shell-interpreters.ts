/**
 * Which shells this machine offers (docs/tools/shell.md#shell-tools): bash and zsh wherever `Bun.which`
 * finds them, powershell only on Windows (`pwsh` first, then Windows
 * PowerShell). The platform and the lookup are parameters so the rules can be
 * exercised on any machine.
 */
import type { ShellInterpreter, ShellName } from './shell-types';

export const SHELL_NAMES: readonly ShellName[] = ['bash', 'zsh', 'powershell'];

export type ExecutableLookup = (command: string) => string | null;

export interface ShellLookupOptions {
  platform?: NodeJS.Platform;
  which?: ExecutableLookup;
}

const POSIX_ARGUMENTS = (command: string): string[] => ['-c', command];
// -NoProfile: the user's profile must not change what a command does or prints;
// -NonInteractive: a prompt fails instead of waiting on a closed stdin.
const POWERSHELL_ARGUMENTS = (command: string): string[] => [
  '-NoProfile',
  '-NonInteractive',
  '-Command',
  command,
];

const CANDIDATES: Record<ShellName, readonly string[]> = {
  bash: ['bash'],
  zsh: ['zsh'],
  powershell: ['pwsh', 'powershell'],
};

/** The interpreter for `shell` on this platform, or undefined when it is not available. */
export function findShellInterpreter(
  shell: ShellName,
  options: ShellLookupOptions = {},
): ShellInterpreter | undefined {
  const platform = options.platform ?? process.platform;
  const which = options.which ?? ((command: string) => Bun.which(command));
  if (shell === 'powershell' && platform !== 'win32') return undefined;
  for (const candidate of CANDIDATES[shell]) {
    const executable = which(candidate);
    if (executable) {
      return {
        shell,
        executable,
        commandArguments: shell === 'powershell' ? POWERSHELL_ARGUMENTS : POSIX_ARGUMENTS,
      };
    }
  }
  return undefined;
}

/** Every shell available here, in the order bash, zsh, powershell. */
export function findAvailableShellInterpreters(
  options: ShellLookupOptions = {},
): ShellInterpreter[] {
  return SHELL_NAMES.map((shell) => findShellInterpreter(shell, options)).filter(
    (interpreter): interpreter is ShellInterpreter => interpreter !== undefined,
  );
}
