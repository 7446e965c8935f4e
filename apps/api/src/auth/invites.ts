/**
 * Invites (docs/security.md#administration): a token an admin hands to one
 * person, which lets that person sign up while sign-up is closed. Only the
 * token's sha256 is stored; it may be bound to one e-mail address, expires,
 * and is used up by the sign-up it admits.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AppDatabase } from '../db/database';
import { readTimestamp, writeTimestamp } from '../db/values';

/** The header a sign-up sends its invite token in. */
export const INVITE_HEADER = 'x-invite-token';
export const INVITE_TOKEN_PREFIX = 'mango_invite_';
export const DEFAULT_INVITE_HOURS = 168;
export const MAX_INVITE_HOURS = 720;

export interface Invite {
  id: string;
  email: string | null;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  usedBy: string | null;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function toInvite(row: {
  id: string;
  email: string | null;
  created_by: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  used_at: Date | string | null;
  used_by: string | null;
}): Invite {
  return {
    id: row.id,
    email: row.email,
    createdBy: row.created_by,
    createdAt: readTimestamp(row.created_at),
    expiresAt: readTimestamp(row.expires_at),
    usedAt: row.used_at === null ? null : readTimestamp(row.used_at),
    usedBy: row.used_by,
  };
}

export function createInviteStore(database: AppDatabase, now: () => number = Date.now) {
  const { db } = database;
  return {
    /** Makes an invite; the token is returned here only. */
    async create(options: {
      createdBy: string | null;
      email?: string | null;
      expiresInHours?: number;
    }): Promise<{ invite: Invite; token: string }> {
      const token = `${INVITE_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
      const at = now();
      const row = {
        id: crypto.randomUUID(),
        token_hash: hashToken(token),
        email: options.email?.trim().toLowerCase() || null,
        created_by: options.createdBy,
        created_at: writeTimestamp(at),
        expires_at: writeTimestamp(
          at + (options.expiresInHours ?? DEFAULT_INVITE_HOURS) * 3_600_000,
        ),
        used_at: null,
        used_by: null,
      };
      await db.insertInto('invites').values(row).execute();
      return { invite: toInvite(row), token };
    },

    async list(): Promise<Invite[]> {
      const rows = await db
        .selectFrom('invites')
        .selectAll()
        .orderBy('created_at', 'desc')
        .execute();
      return rows.map(toInvite);
    },

    /** The unused, unexpired invite of this token, or why there is none. */
    async findUsable(
      token: string,
    ): Promise<{ invite: Invite } | { problem: 'unknown' | 'used' | 'expired' }> {
      const row = await db
        .selectFrom('invites')
        .selectAll()
        .where('token_hash', '=', hashToken(token))
        .executeTakeFirst();
      if (!row) return { problem: 'unknown' };
      const invite = toInvite(row);
      if (invite.usedAt) return { problem: 'used' };
      if (Date.parse(invite.expiresAt) <= now()) return { problem: 'expired' };
      return { invite };
    },

    /** Marks the invite used by `userId`; false when another sign-up used it first. */
    async markUsed(inviteId: string, userId: string | null): Promise<boolean> {
      const result = await db
        .updateTable('invites')
        .set({ used_at: writeTimestamp(now()), used_by: userId })
        .where('id', '=', inviteId)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type InviteStore = ReturnType<typeof createInviteStore>;
