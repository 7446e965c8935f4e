/**
 * The `allowedPaths` / `deniedPaths` settings every filesystem tool exposes
 * (docs/tools/filesystem.md#paths-and-the-working-directory), described once so each tool's settings form looks the same.
 */
import type { PathListEntry, ToolParameterDescriptor } from '../types';

export const ALLOWED_PATHS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'allowedPaths',
  label: 'Allowed paths',
  description:
    'When at least one enabled entry is set, the tool only reaches paths inside one of them (checked after following symbolic links). Absolute or starting with "~".',
  type: 'path_list',
  defaultValue: [],
};

export const DENIED_PATHS_DESCRIPTOR: ToolParameterDescriptor = {
  name: 'deniedPaths',
  label: 'Denied paths',
  description:
    'Paths the tool never reaches, even inside an allowed path (deny wins; checked after following symbolic links). Absolute or starting with "~".',
  type: 'path_list',
  defaultValue: [],
};

export const PATH_POLICY_DESCRIPTORS: ToolParameterDescriptor[] = [
  ALLOWED_PATHS_DESCRIPTOR,
  DENIED_PATHS_DESCRIPTOR,
];

/** The `path` argument of the tools that take one file (read, write, edit). */
export const FILE_PATH_PROPERTY = {
  type: 'string',
  description: 'The file: absolute, starting with "~", or relative to the working directory.',
  minLength: 1,
  maxLength: 4096,
} as const;

export function defaultPathPolicyParameters(): {
  allowedPaths: PathListEntry[];
  deniedPaths: PathListEntry[];
} {
  return { allowedPaths: [], deniedPaths: [] };
}
