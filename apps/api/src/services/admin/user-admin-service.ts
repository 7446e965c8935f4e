/**
 * Administration of accounts (docs/security.md#administration): list, create,
 * disable and enable users, change a role, reset a password, make invites.
 * Shared by the admin routes and the command line (`npm run admin`), so both
 * act the same on either database. Disabling an account or resetting its
 * password deletes its sessions and tells every instance to forget the
 * credentials it verified, so they stop working at once.
 */
import { randomBytes } from 'node:crypto';
import type { AuthService } from '../../auth/create-auth';
import { runWithSignupGrant } from '../../auth/signup-grant';
import type { AppDatabase } from '../../db/database';
import { readTimestamp, writeTimestamp } from '../../db/values';
import { ApiError } from '../../errors';
import { HOST_ACCESS_CHANNEL } from './granted-roots';

export type UserRole = 'admin' | 'user';

export interface AdminUserRecord {
  id: string;
  email: string;
  name: string;
  role: UserRole;
  disabled: boolean;
  createdAt: string;
}

export interface UserAdminDeps {
  database: AppDatabase;
  auth: AuthService;
  now?: () => number;
  /**
   * A user's role changed, and with it where their system tools may reach:
   * forget what was cached (the granted-roots service's `forget`). Without
   * it, every instance is signalled on the change feed.
   */
  onRoleChanged?: (userId: string) => Promise<void>;
}

/** A generated password: 24 random bytes, URL-safe (32 characters). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

function userNotFound(idOrEmail: string): ApiError {
  return new ApiError('not_found', `There is no user "${idOrEmail}".`, {
    details: { field: 'user' },
  });
}

export function createUserAdminService(deps: UserAdminDeps) {
  const { database, auth } = deps;
  const { db } = database;
  const now = deps.now ?? Date.now;

  const selectUsers = () =>
    db.selectFrom('users').select(['id', 'email', 'name', 'role', 'disabled_at', 'created_at']);
  const toRecord = (row: {
    id: string;
    email: string;
    name: string;
    role: string | null;
    disabled_at: Date | string | null;
    created_at: Date | string;
  }): AdminUserRecord => ({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role === 'admin' ? 'admin' : 'user',
    disabled: row.disabled_at !== null,
    createdAt: readTimestamp(row.created_at),
  });

  async function get(userId: string): Promise<AdminUserRecord> {
    const row = await selectUsers().where('id', '=', userId).executeTakeFirst();
    if (!row) throw userNotFound(userId);
    return toRecord(row);
  }

  async function checkPassword(password: string): Promise<void> {
    const { minPasswordLength, maxPasswordLength } = (await auth.context()).password.config;
    if (password.length < minPasswordLength || password.length > maxPasswordLength) {
      throw new ApiError(
        'validation_failed',
        `A password must be ${minPasswordLength} to ${maxPasswordLength} characters long; this one has ${password.length}.`,
        { details: { field: 'password' } },
      );
    }
  }

  /** Deletes the user's sessions and makes every instance check credentials again. */
  async function signOutEverywhere(userId: string): Promise<void> {
    await (await auth.context()).internalAdapter.deleteUserSessions(userId);
    await auth.revokeCredentials();
  }

  async function countActiveAdmins(): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('role', '=', 'admin')
      .where('disabled_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  return {
    get,

    async list(): Promise<AdminUserRecord[]> {
      const rows = await selectUsers().orderBy('created_at', 'asc').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async findByEmail(email: string): Promise<AdminUserRecord> {
      const row = await selectUsers()
        .where('email', '=', email.trim().toLowerCase())
        .executeTakeFirst();
      if (!row) throw userNotFound(email);
      return toRecord(row);
    },

    /** Creates an account (whatever MANGO_ALLOW_SIGNUP says); a password is generated when none is given. */
    async create(input: {
      email: string;
      name?: string;
      password?: string;
      role?: UserRole;
    }): Promise<{ user: AdminUserRecord; generatedPassword?: string }> {
      const password = input.password ?? generatePassword();
      await checkPassword(password);
      const email = input.email.trim().toLowerCase();
      const created = await database.withLock('auth:sign-up', async () => {
        const existing = await db
          .selectFrom('users')
          .select('id')
          .where('email', '=', email)
          .executeTakeFirst();
        if (existing) {
          throw new ApiError(
            'conflict',
            `An account with the e-mail address ${email} exists already.`,
            {
              retryable: false,
              details: { field: 'email' },
            },
          );
        }
        return runWithSignupGrant({ role: input.role ?? 'user' }, () =>
          auth.api.signUpEmail({
            body: { email, password, name: input.name?.trim() || email.split('@')[0] || email },
          }),
        );
      });
      // Sign-up signs the new user in; the admin did, not the user.
      await (await auth.context()).internalAdapter.deleteUserSessions(created.user.id);
      return {
        user: await get(created.user.id),
        ...(input.password === undefined ? { generatedPassword: password } : {}),
      };
    },

    /**
     * Changes whether the account is disabled and its role. The last enabled
     * admin can be neither disabled nor demoted, and an admin cannot disable
     * their own account (`actingUserId`), so the server never loses its admins.
     */
    async update(
      userId: string,
      changes: { disabled?: boolean; role?: UserRole },
      actingUserId?: string,
    ): Promise<AdminUserRecord> {
      const user = await get(userId);
      if (changes.disabled === true && actingUserId === userId) {
        throw new ApiError('conflict', 'You cannot disable your own account.', {
          retryable: false,
          details: { field: 'disabled' },
        });
      }
      const losesAdmin =
        user.role === 'admin' &&
        !user.disabled &&
        (changes.disabled === true || changes.role === 'user');
      return database.withLock('admin:users', async () => {
        if (losesAdmin && (await countActiveAdmins()) <= 1) {
          throw new ApiError(
            'conflict',
            'This is the last enabled admin: make another account admin first.',
            {
              retryable: false,
              details: { field: changes.disabled === true ? 'disabled' : 'role' },
            },
          );
        }
        const set: { disabled_at?: string | null; role?: string; updated_at: string } = {
          updated_at: writeTimestamp(now()),
        };
        if (changes.disabled === true && !user.disabled) set.disabled_at = writeTimestamp(now());
        if (changes.disabled === false) set.disabled_at = null;
        if (changes.role !== undefined) set.role = changes.role;
        await db.updateTable('users').set(set).where('id', '=', userId).execute();
        if (changes.role !== undefined && changes.role !== user.role)
          await (deps.onRoleChanged
            ? deps.onRoleChanged(userId)
            : database.changes.notify(HOST_ACCESS_CHANNEL, userId).catch(() => {}));
        if (changes.disabled === true) await signOutEverywhere(userId);
        else if (changes.role !== undefined || changes.disabled === false)
          await auth.revokeCredentials();
        return get(userId);
      });
    },

    /** Sets a new password (generated when none is given) and signs the user out everywhere. */
    async resetPassword(
      userId: string,
      password?: string,
    ): Promise<{ user: AdminUserRecord; generatedPassword?: string }> {
      const user = await get(userId);
      const next = password ?? generatePassword();
      await checkPassword(next);
      const context = await auth.context();
      const hash = await context.password.hash(next);
      const account = await context.internalAdapter.findCredentialAccount(userId);
      if (account) await context.internalAdapter.updatePassword(userId, hash);
      else
        await context.internalAdapter.linkAccount({
          userId,
          providerId: 'credential',
          accountId: userId,
          password: hash,
        });
      await signOutEverywhere(userId);
      return { user, ...(password === undefined ? { generatedPassword: next } : {}) };
    },
  };
}

export type UserAdminService = ReturnType<typeof createUserAdminService>;
