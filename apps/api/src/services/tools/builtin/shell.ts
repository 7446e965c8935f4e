/**
 * The shell tools (docs/tools/shell.md#shell-tools): bash, zsh and powershell, each registered at
 * import only when its interpreter exists here. The implementation lives in
 * `shell/`; this module wires it into the registry.
 */
import { defaultToolRegistry, type ToolRegistry } from '../registry';
import {
  findAvailableShellInterpreters,
  type ShellLookupOptions,
} from './shell/shell-interpreters';
import { type BuildShellToolOptions, buildShellTool } from './shell/shell-tool';
import type { ShellName } from './shell/shell-types';

export { getSandboxStatus, type SandboxStatus } from './shell/bubblewrap-sandbox';
export { type RunShellCommandOptions, runShellCommand } from './shell/run-shell-command';
export { findAvailableShellInterpreters, findShellInterpreter } from './shell/shell-interpreters';
export { buildShellTool } from './shell/shell-tool';
export type {
  ShellCommandResult,
  ShellInterpreter,
  ShellName,
  ShellTermination,
} from './shell/shell-types';

/** Registers a tool for every shell available (platform and lookup injectable); returns their names. */
export function registerAvailableShellTools(
  registry: ToolRegistry,
  options: ShellLookupOptions & BuildShellToolOptions = {},
): ShellName[] {
  const interpreters = findAvailableShellInterpreters(options);
  for (const interpreter of interpreters) registry.register(buildShellTool(interpreter, options));
  return interpreters.map((interpreter) => interpreter.shell);
}

registerAvailableShellTools(defaultToolRegistry);
