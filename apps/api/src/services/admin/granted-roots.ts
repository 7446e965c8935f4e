/**
 * Granted roots (docs/security.md#system-tools-are-granted): the directories
 * an admin lets a non-admin user's system tools reach. Stored in
 * `granted_roots`; read with the user's role as the user's `HostAccess`,
 * which the chats, the turns, the inspector and the settings list all use.
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AppDatabase } from '../../db/database';
import { createFeedBackedCache } from '../../db/feed-backed-cache';
import { writeTimestamp } from '../../db/values';
import { ApiError } from '../../errors';
import { isPathInside } from '../tools/path-policy';
import type { HostAccess } from '../tools/types';

/** More roots than this is a list of files, not a grant. */
export const MAX_GRANTED_ROOTS = 100;

/** The change channel of a user's host access (their roots or their role; the key is the user id). */
export const HOST_ACCESS_CHANNEL = 'host_access';
/** Bounds how long a change nobody signalled (a hand edit, the CLI on SQLite) can go unseen. */
const HOST_ACCESS_TTL_MS = 30_000;

export interface GrantedRootsService {
  /** The user's roots, sorted; 404 for an unknown user. */
  list(userId: string): Promise<string[]>;
  /** Replaces the user's roots (each an existing directory outside the data directory). */
  replace(userId: string, roots: readonly string[]): Promise<string[]>;
  /** What the user's system tools may reach: an admin anywhere, anyone else their roots. */
  hostAccess(userId: string): Promise<HostAccess>;
  /** `hostAccess` when it is known in memory (fresh), without reading anything; else undefined. */
  knownHostAccess(userId: string): HostAccess | undefined;
  /** The user's roots or role changed: this instance forgets at once, the others when signalled. */
  forget(userId: string): Promise<void>;
}

export interface GrantedRootsDeps {
  database: AppDatabase;
  /** Paths no root may lie in (the server's data directory). */
  protectedPaths?: readonly string[];
  now?: () => number;
}

function rootError(root: string, message: string): ApiError {
  return new ApiError('validation_failed', message, { details: { field: 'roots', root } });
}

function realOrLexical(location: string): string {
  try {
    return realpathSync(location);
  } catch {
    return path.resolve(location);
  }
}

/** `~` expanded, absolute, normalised; an existing directory outside every protected path. */
export function checkGrantedRoot(input: string, protectedPaths: readonly string[] = []): string {
  const trimmed = input.trim();
  const expanded =
    trimmed === '~'
      ? homedir()
      : trimmed.startsWith('~/')
        ? path.join(homedir(), trimmed.slice(2))
        : trimmed;
  if (!path.isAbsolute(expanded))
    throw rootError(
      input,
      `A granted root must be an absolute path or start with ~; got "${input}".`,
    );
  const root = path.resolve(expanded);
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw rootError(input, `The granted root "${root}" does not exist on the server.`);
  }
  if (!isDirectory)
    throw rootError(input, `The granted root "${root}" is a file, not a directory.`);
  const real = realOrLexical(root);
  for (const protectedPath of protectedPaths) {
    if (isPathInside(realOrLexical(protectedPath), real) || isPathInside(protectedPath, root))
      throw rootError(
        input,
        `The granted root "${root}" lies inside the server's data directory, which no tool may reach.`,
      );
  }
  return root;
}

export function createGrantedRoots(deps: GrantedRootsDeps): GrantedRootsService {
  const { db } = deps.database;
  const now = deps.now ?? Date.now;
  // Asked on every settings list, inspector, turn and chat change: kept while the feed vouches for it.
  const cache = createFeedBackedCache<HostAccess>({
    feed: deps.database.changes,
    channel: HOST_ACCESS_CHANNEL,
    invalidates: 'key',
    maxEntries: 10_000,
    ttlMs: HOST_ACCESS_TTL_MS,
  });
  const forget = async (userId: string) => {
    cache.forget(userId);
    await deps.database.changes.notify(HOST_ACCESS_CHANNEL, userId).catch(() => {
      // The write stands; other instances see it when their entry expires.
    });
  };

  async function requireUser(userId: string): Promise<{ role: string | null }> {
    const user = await db
      .selectFrom('users')
      .select('role')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user)
      throw new ApiError('not_found', `There is no user "${userId}".`, {
        details: { field: 'user' },
      });
    return user;
  }

  async function rootsOf(userId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('granted_roots')
      .select('path')
      .where('user_id', '=', userId)
      .orderBy('path')
      .execute();
    return rows.map((row) => row.path);
  }

  return {
    async list(userId) {
      await requireUser(userId);
      return rootsOf(userId);
    },

    async replace(userId, requested) {
      await requireUser(userId);
      if (requested.length > MAX_GRANTED_ROOTS)
        throw new ApiError(
          'validation_failed',
          `At most ${MAX_GRANTED_ROOTS} roots may be granted to one user; got ${requested.length}.`,
          { details: { field: 'roots' } },
        );
      const roots = [
        ...new Set(requested.map((root) => checkGrantedRoot(root, deps.protectedPaths))),
      ].sort();
      const createdAt = writeTimestamp(now());
      await db.transaction().execute(async (transaction) => {
        await transaction.deleteFrom('granted_roots').where('user_id', '=', userId).execute();
        if (roots.length > 0)
          await transaction
            .insertInto('granted_roots')
            .values(
              roots.map((root) => ({
                id: crypto.randomUUID(),
                user_id: userId,
                path: root,
                created_at: createdAt,
              })),
            )
            .execute();
      });
      await forget(userId);
      return roots;
    },

    forget,

    knownHostAccess: (userId) => cache.fresh(userId),

    async hostAccess(userId) {
      const known = cache.fresh(userId);
      if (known) return known;
      const read = cache.startRead(userId);
      const access = await readHostAccess(userId);
      read.store(access);
      return access;
    },
  };

  async function readHostAccess(userId: string): Promise<HostAccess> {
    const user = await db
      .selectFrom('users')
      .select('role')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (user?.role === 'admin') return { kind: 'admin' };
    return { kind: 'granted', roots: await rootsOf(userId) };
  }
}
