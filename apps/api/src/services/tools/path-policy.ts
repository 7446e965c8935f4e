/**
 * The path policy (docs/tools/filesystem.md#paths-and-the-working-directory): the one place where every filesystem tool turns a
 * path argument into a checked location. `~` expansion, resolution against the
 * chat's working directory, allowed/denied paths and agent-mode containment,
 * every check made on the real (symlink-resolved) path.
 */

import { lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PermissionDeniedError } from './errors';
import { resolveRealPath, resolveRealPathOf } from './fs/real-path';
import { argumentError, checkLength, checkPathString, expandHome } from './path-arguments';
import { getPathListSetting } from './stored-setting-readers';
import type { ToolContext } from './types';

export type PathPolicyContext = Pick<
  ToolContext,
  | 'mode'
  | 'workingDirectory'
  | 'restrictToWorkingDirectory'
  | 'parameters'
  | 'protectedPaths'
  | 'grantedRoots'
>;

export interface ResolvedPath {
  /** The argument as received. */
  input: string;
  /** After `~` expansion and resolution against the working directory (lexical, normalised). */
  absolutePath: string;
  /** absolutePath with its nearest existing ancestor resolved through symlinks (+ the non-existing rest). */
  realPath: string;
  /** Whether absolutePath exists (lstat: a broken symlink exists). */
  exists: boolean;
}

export { MAX_PATH_BYTES, MAX_PATH_COMPONENT_BYTES } from './path-arguments';

/** The rule that refused a path, in `PermissionDeniedError.details.rule`. */
export type PathPolicyRule =
  | 'grantedRoots'
  | 'allowedPaths'
  | 'deniedPaths'
  | 'containment'
  | 'serverData';

export function getEffectiveWorkingDirectory(context: PathPolicyContext): string | undefined {
  if (context.mode !== 'agent') return undefined;
  const directory = context.workingDirectory;
  if (typeof directory !== 'string' || directory.trim() === '') return undefined;
  return path.resolve(directory);
}

export function isContainmentActive(context: PathPolicyContext): boolean {
  return (
    context.restrictToWorkingDirectory === true &&
    getEffectiveWorkingDirectory(context) !== undefined
  );
}

/** Segment-aware and inclusive: `/a/b` contains `/a/b` and `/a/b/c`, never `/a/bc`. */
export function isPathInside(parent: string, candidate: string): boolean {
  const base = path.resolve(parent);
  const target = path.resolve(candidate);
  if (base === target) return true;
  const prefix = base.endsWith(path.sep) ? base : `${base}${path.sep}`;
  return target.startsWith(prefix);
}

function pathExists(absolutePath: string): boolean {
  try {
    lstatSync(absolutePath);
    return true;
  } catch {
    return false;
  }
}

interface ResolvedEntry {
  /** As configured, for messages. */
  configured: string;
  absolutePath: string;
  realPath: string;
}

interface PolicyRules {
  /** The roots an admin granted the user; undefined when none bind (an admin). */
  granted?: ResolvedEntry[];
  allowed: ResolvedEntry[];
  denied: ResolvedEntry[];
  /** The server's own paths (`ToolContext.protectedPaths`). */
  serverOwned: ResolvedEntry[];
  /** The working directory and its real path when containment is active. */
  containment?: { absolutePath: string; realPath: string };
}

/**
 * Paths the server itself owns (its data directory: the database, the auth
 * secret, stored images), given to every tool call as `protectedPaths`. No
 * tool reads, lists, searches or writes them, in any mode and whatever the
 * user's settings say: a model must not be able to read password hashes or
 * rewrite the database under the server. Resolved once per list (the
 * composition root hands every call the same one).
 */
const protectedEntriesCache = new WeakMap<readonly string[], ResolvedEntry[]>();

function protectedEntries(paths: readonly string[] | undefined): ResolvedEntry[] {
  if (!paths || paths.length === 0) return [];
  let entries = protectedEntriesCache.get(paths);
  if (!entries) {
    entries = paths.map((configured) => {
      const absolutePath = path.resolve(configured);
      let realPath = absolutePath;
      try {
        realPath = realpathSync(absolutePath);
      } catch {
        // not created yet: protect the lexical location
      }
      return { configured, absolutePath, realPath };
    });
    protectedEntriesCache.set(paths, entries);
  }
  return entries;
}

/** Granted roots are absolute; resolved through symlinks at each check, as the paths they bind are. */
function resolveGrantedRoots(roots: readonly string[] | undefined): ResolvedEntry[] | undefined {
  if (roots === undefined) return undefined;
  return roots.map((configured) => {
    const absolutePath = path.resolve(configured);
    let realPath = absolutePath;
    try {
      realPath = realpathSync(absolutePath);
    } catch {
      // a root that is gone (or not yet made) grants only its lexical location
    }
    return { configured, absolutePath, realPath };
  });
}

/**
 * Settings entries are `~`-expanded and realpath-resolved like arguments. A
 * relative entry is resolved against the effective working directory, else the
 * API process's directory (documented in the README). Entries that cannot be
 * resolved (a symlink loop) are kept lexically so a denied entry never vanishes.
 */
async function resolveEntries(raw: unknown, context: PathPolicyContext): Promise<ResolvedEntry[]> {
  const base = getEffectiveWorkingDirectory(context) ?? process.cwd();
  const entries = getPathListSetting(raw, []).filter((entry) => entry.enabled);
  return Promise.all(
    entries.map(async (entry) => {
      let expanded = entry.path;
      if (expanded === '~') expanded = homedir();
      else if (expanded.startsWith(`~${path.sep}`))
        expanded = path.join(homedir(), expanded.slice(2));
      const absolutePath = path.resolve(base, expanded);
      let realPath = absolutePath;
      try {
        realPath = await resolveRealPath(absolutePath, 'setting', entry.path);
      } catch {
        // keep the lexical form
      }
      return { configured: entry.path, absolutePath, realPath };
    }),
  );
}

async function loadRules(context: PathPolicyContext): Promise<PolicyRules> {
  const [allowed, denied] = await Promise.all([
    resolveEntries(context.parameters?.allowedPaths, context),
    resolveEntries(context.parameters?.deniedPaths, context),
  ]);
  const granted = resolveGrantedRoots(context.grantedRoots);
  const rules: PolicyRules = {
    ...(granted ? { granted } : {}),
    allowed,
    denied,
    serverOwned: protectedEntries(context.protectedPaths),
  };
  if (isContainmentActive(context)) {
    const directory = getEffectiveWorkingDirectory(context) as string;
    let realDirectory = directory;
    try {
      realDirectory = await resolveRealPath(directory, 'workingDirectory', directory);
    } catch {
      // an unresolvable working directory contains only itself, lexically
    }
    rules.containment = { absolutePath: directory, realPath: realDirectory };
  }
  return rules;
}

type Verdict = { rule: PathPolicyRule; entry?: ResolvedEntry } | undefined;

function judge(rules: PolicyRules, realPath: string, absolutePath?: string): Verdict {
  if (rules.granted && !rules.granted.some((entry) => isPathInside(entry.realPath, realPath))) {
    return { rule: 'grantedRoots' };
  }
  if (
    rules.allowed.length > 0 &&
    !rules.allowed.some((entry) => isPathInside(entry.realPath, realPath))
  ) {
    return { rule: 'allowedPaths' };
  }
  const denied = rules.denied.find(
    (entry) =>
      isPathInside(entry.realPath, realPath) ||
      (absolutePath !== undefined && isPathInside(entry.absolutePath, absolutePath)),
  );
  if (denied) return { rule: 'deniedPaths', entry: denied };
  if (rules.containment && !isPathInside(rules.containment.realPath, realPath)) {
    return { rule: 'containment' };
  }
  const serverOwned = rules.serverOwned.find(
    (entry) =>
      isPathInside(entry.realPath, realPath) ||
      (absolutePath !== undefined && isPathInside(entry.absolutePath, absolutePath)),
  );
  if (serverOwned) return { rule: 'serverData', entry: serverOwned };
  return undefined;
}

function describeTarget(resolved: Omit<ResolvedPath, 'exists'>): string {
  const via =
    resolved.realPath !== resolved.absolutePath
      ? ` (which resolves to "${resolved.realPath}")`
      : '';
  return `Path "${resolved.input}"${via}`;
}

function refusal(
  verdict: NonNullable<Verdict>,
  resolved: Omit<ResolvedPath, 'exists'>,
  rules: PolicyRules,
): PermissionDeniedError {
  const target = describeTarget(resolved);
  const details = { rule: verdict.rule, path: resolved.absolutePath, realPath: resolved.realPath };
  switch (verdict.rule) {
    case 'grantedRoots':
      return new PermissionDeniedError(
        rules.granted && rules.granted.length > 0
          ? `${target} is outside the directories an admin granted this user (${rules.granted.map((entry) => `"${entry.configured}"`).join(', ')}). Use a path inside one of them, or ask an admin to grant more.`
          : `${target} cannot be reached: an admin has granted this user no directory on the server. Ask an admin to grant one.`,
        { details },
      );
    case 'allowedPaths':
      return new PermissionDeniedError(
        `${target} is outside every allowed path (allowedPaths setting: ${rules.allowed.map((entry) => `"${entry.configured}"`).join(', ')}). Use a path inside one of them, or ask the user to extend the setting.`,
        { details },
      );
    case 'deniedPaths':
      return new PermissionDeniedError(
        `${target} is inside the denied path "${verdict.entry?.configured}" (deniedPaths setting; a denied path wins over an allowed one). Do not try to reach it another way; ask the user if you need it.`,
        { details },
      );
    case 'serverData':
      return new PermissionDeniedError(
        `${target} is inside the server's own data directory, which no tool may read or change. Work with files elsewhere.`,
        { details },
      );
    case 'containment':
      return new PermissionDeniedError(
        `${target} is outside this chat's working directory "${rules.containment?.absolutePath}". File tools are restricted to the working directory (symbolic links are followed before the check); use a path inside it.`,
        { details },
      );
  }
}

/**
 * Resolves a path argument and applies the policy, in docs/tools/filesystem.md#paths-and-the-working-directory order: expand
 * `~`; resolve relative paths against the working directory (refused before any
 * disk access when there is none); allowed paths; denied paths (deny wins);
 * containment. Throws `ToolArgumentError` for malformed paths and
 * `PermissionDeniedError` naming the rule that refused.
 */
export async function resolveAndValidatePath(
  rawPath: string,
  context: PathPolicyContext,
  options: { argument?: string } = {},
): Promise<ResolvedPath> {
  const argument = options.argument ?? 'path';
  const input = checkPathString(rawPath, argument);
  const expanded = expandHome(input, argument);
  let absolutePath: string;
  if (path.isAbsolute(expanded)) {
    absolutePath = path.resolve(expanded);
  } else {
    const directory = getEffectiveWorkingDirectory(context);
    if (directory === undefined) {
      throw argumentError(
        argument,
        `Argument "${argument}" is the relative path "${input}", but this chat has no working directory to resolve it against${context.mode === 'chat' ? ' (chat mode does not use a bound directory)' : ''}. Give an absolute path or one starting with "~".`,
      );
    }
    absolutePath = path.resolve(directory, expanded);
  }
  checkLength(absolutePath, argument);
  const resolved = await resolveRealPathOf(absolutePath, argument, input);
  const { realPath } = resolved;
  const rules = await loadRules(context);
  const verdict = judge(rules, realPath, absolutePath);
  if (verdict) throw refusal(verdict, { input, absolutePath, realPath }, rules);
  // A path that resolved whole exists; otherwise it is looked up (a broken link still exists).
  return { input, absolutePath, realPath, exists: resolved.exists || pathExists(absolutePath) };
}

/**
 * The policy as a synchronous check of an already-real path, for walks (grep,
 * glob, list). `allowsEverythingBelow` lets a walk skip the per-entry check in
 * a directory no rule reaches into.
 */
export interface PathFilter {
  (realPath: string): boolean;
  /**
   * True when every path strictly below `realDirectory` passes: it lies inside
   * an allowed path (when any is set) and inside the containment directory,
   * and no denied or server-owned path lies above or below it.
   */
  allowsEverythingBelow(realDirectory: string): boolean;
}

/**
 * For walks (grep, glob, list): the same allowed/denied/containment rules as a
 * synchronous check of an already-real path, with the entries resolved once.
 */
export async function createPathFilter(context: PathPolicyContext): Promise<PathFilter> {
  const rules = await loadRules(context);
  // Walks call this once per entry, so the common case avoids path.resolve: for an
  // absolute path already in normal form, a segment-aware prefix test is the same check.
  const prefixes = (entries: ResolvedEntry[]) =>
    entries.map((entry) => directoryPrefix(entry.realPath));
  const granted = rules.granted ? prefixes(rules.granted) : undefined;
  const allowed = prefixes(rules.allowed);
  const denied = prefixes(rules.denied);
  const contained = rules.containment ? directoryPrefix(rules.containment.realPath) : undefined;
  const serverOwned = prefixes(rules.serverOwned);
  const inside = (prefix: string, candidate: string) =>
    candidate.startsWith(prefix) || `${candidate}${path.sep}` === prefix;
  const filter = (realPath: string) => {
    if (!isNormalAbsolute(realPath)) return judge(rules, realPath) === undefined;
    if (granted !== undefined && !granted.some((prefix) => inside(prefix, realPath))) return false;
    if (allowed.length > 0 && !allowed.some((prefix) => inside(prefix, realPath))) return false;
    if (denied.some((prefix) => inside(prefix, realPath))) return false;
    if (contained !== undefined && !inside(contained, realPath)) return false;
    return !serverOwned.some((prefix) => inside(prefix, realPath));
  };
  const allowsEverythingBelow = (realDirectory: string): boolean => {
    if (!isNormalAbsolute(realDirectory)) return false;
    const below = realDirectory === path.sep ? path.sep : `${realDirectory}${path.sep}`;
    // A rule path above the directory (or the directory itself) covers all of it; one below covers part.
    const reaches = (prefix: string) => below.startsWith(prefix) || prefix.startsWith(below);
    if (granted !== undefined && !granted.some((prefix) => below.startsWith(prefix))) return false;
    if (allowed.length > 0 && !allowed.some((prefix) => below.startsWith(prefix))) return false;
    if (contained !== undefined && !below.startsWith(contained)) return false;
    return !denied.some(reaches) && !serverOwned.some(reaches);
  };
  return Object.assign(filter, { allowsEverythingBelow });
}

/** `/a/b` → `/a/b/`; `/` stays `/`. */
function directoryPrefix(directory: string): string {
  const normal = path.resolve(directory);
  return normal.endsWith(path.sep) ? normal : `${normal}${path.sep}`;
}

/** True when `candidate` is absolute and already normalised (no `.`/`..` segments, `//` or trailing `/`). */
function isNormalAbsolute(candidate: string): boolean {
  return (
    candidate.startsWith(path.sep) &&
    (candidate.length === 1 || !candidate.endsWith(path.sep)) &&
    !candidate.includes(`${path.sep}${path.sep}`) &&
    !/\/\.\.?(\/|$)/.test(candidate)
  );
}

/** Working directory → its real path; only successes are cached (a directory may appear later). */
const realDirectoryCache = new Map<string, string>();

function realDirectoryOf(directory: string): string | undefined {
  const cached = realDirectoryCache.get(directory);
  if (cached !== undefined) return cached;
  try {
    const real = realpathSync(directory);
    if (realDirectoryCache.size >= 256) realDirectoryCache.clear();
    realDirectoryCache.set(directory, real);
    return real;
  } catch {
    return undefined;
  }
}

/**
 * Result-path re-anchoring (docs/tools/filesystem.md#paths-and-the-working-directory, "both ways"): relative to the effective
 * working directory when one is bound and the path lies inside it (or inside
 * its real location, when the directory is reached through a symlink);
 * absolute otherwise. The working directory itself is reported as ".".
 */
export function toReportedPath(absolutePath: string, context: PathPolicyContext): string {
  const target = path.resolve(absolutePath);
  const directory = getEffectiveWorkingDirectory(context);
  if (directory === undefined) return target;
  if (isPathInside(directory, target)) return path.relative(directory, target) || '.';
  const realDirectory = realDirectoryOf(directory);
  if (realDirectory && realDirectory !== directory && isPathInside(realDirectory, target)) {
    return path.relative(realDirectory, target) || '.';
  }
  return target;
}

/**
 * `toReportedPath` for the entries of one walk, given as "/"-separated names
 * below `baseAbsolutePath` (no "." or ".." segments). When the base lies inside
 * the working directory every answer is one string join, instead of resolving
 * and relating each path again (a walk reports thousands).
 */
export function createReportedPathBuilder(
  baseAbsolutePath: string,
  context: PathPolicyContext,
): (relativePath: string) => string {
  const base = path.resolve(baseAbsolutePath);
  const directory = getEffectiveWorkingDirectory(context);
  if (directory !== undefined && isPathInside(directory, base)) {
    const relativeBase = path.relative(directory, base);
    if (relativeBase === '') return (relativePath) => relativePath;
    return (relativePath) => `${relativeBase}/${relativePath}`;
  }
  const prefix = base === path.sep ? '' : base;
  return (relativePath) => toReportedPath(`${prefix}/${relativePath}`, context);
}
