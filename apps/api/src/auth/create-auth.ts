/**
 * Accounts (docs/operations.md#security) with better-auth: email + password under /api/auth, the
 * first account an admin and always allowed to sign up, later sign-ups only
 * when configuration allows, and API keys for scripts (sent as
 * `Authorization: Bearer <key>`). better-auth's tables live in the same
 * Kysely-managed database as everything else, on either dialect.
 */
import { apiKey } from '@better-auth/api-key';
import type { GenericEndpointContext } from '@better-auth/core';
import { getCurrentAdapter } from '@better-auth/core/context';
import { APIError, type BetterAuthOptions, betterAuth } from 'better-auth';
import { openAPI } from 'better-auth/plugins';
import { DEFAULT_AUTH_ATTEMPTS_PER_MINUTE } from '../config';
import type { AppDatabase } from '../db/database';
import { createFeedBackedCache } from '../db/feed-backed-cache';
import type { Logger } from '../logger';
import { inviteRefused, toApiErrorFormat } from './auth-replies';
import { API_KEY_MODEL, AUTH_MODELS, RATE_LIMIT_MODEL, USER_ROLE_FIELD } from './auth-schema';
import { CLIENT_ADDRESS_HEADER, resolveClientAddress } from './client-address';
import { createInviteStore, INVITE_HEADER, type InviteStore } from './invites';
import { currentSignupGrant, runWithSignupGrant } from './signup-grant';

export const AUTH_BASE_PATH = '/api/auth';
export const API_KEY_PREFIX = 'mango_';
/**
 * How long a verified session or API key is trusted without asking better-auth
 * again. Verifying costs signatures and database reads (most of a settings
 * request). A revocation (sign-out, revoked session, changed password, deleted
 * key or user) empties the cache of the instance that handled it at once, and
 * of every other instance when the change feed's signal arrives; while the
 * feed is not live, credentials are verified on every request.
 */
export const CREDENTIAL_CACHE_MS = 30_000;
/** The change-feed channel that says "some credential was revoked: forget what you verified". */
export const CREDENTIALS_CHANNEL = 'auth_credentials';
const CREDENTIAL_CACHE_ENTRIES = 10_000;

/** better-auth routes after which a cached credential may be stale. */
const REVOKING_PATH =
  /\/(sign-out|revoke-session|revoke-sessions|revoke-other-sessions|change-password|reset-password|delete-user|api-key\/(update|delete))$/;

export interface AuthenticatedUser {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'user';
}

export interface AuthOptions {
  database: AppDatabase;
  /** Signs session cookies; at least 32 characters. */
  secret: string;
  /** Whether accounts after the first may sign up. */
  allowSignup: boolean;
  /** The public URL (MANGO_PUBLIC_URL), when configured. */
  baseURL?: string;
  /**
   * Sign-in and sign-up attempts per client address and minute, each route
   * counted on its own (MANGO_AUTH_ATTEMPTS_PER_MINUTE); 0 switches the limiter off.
   */
  attemptsPerMinute?: number;
  /** Proxies whose X-Forwarded-For names the client (MANGO_TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  logger?: Logger;
}

export interface AuthService {
  /**
   * Answers every request under /api/auth. `peerAddress` is the connection's
   * remote address, which the sign-in limiter counts by.
   */
  handle(request: Request, peerAddress?: string): Promise<Response>;
  /** The user a request is signed in as (session cookie or API key), or null. */
  authenticate(headers: Headers): Promise<AuthenticatedUser | null>;
  /** better-auth's server API, for tests and scripts. */
  api: ReturnType<typeof buildBetterAuth>['api'];
  /** OpenAPI paths of the /api/auth routes, as better-auth describes them. */
  openApiPaths(): Promise<Record<string, unknown>>;
  /** better-auth's internals (password hashing, the internal adapter), for administration. */
  context(): Promise<AuthInternals>;
  /** The invites that let one person sign up while sign-up is closed. */
  invites: InviteStore;
  /**
   * Every instance forgets the credentials it verified (after an account was
   * disabled, a password reset, a role changed), so the next request is checked again.
   */
  revokeCredentials(): Promise<void>;
}

export type AuthInternals = Awaited<ReturnType<typeof buildBetterAuth>['$context']>;

/** better-auth's options for this server; exported so a test can check the schema against them. */
export function buildAuthOptions(options: AuthOptions) {
  const { database, logger } = options;
  const attemptsPerMinute = options.attemptsPerMinute ?? DEFAULT_AUTH_ATTEMPTS_PER_MINUTE;
  const attemptRule = { window: 60, max: attemptsPerMinute };
  return {
    basePath: AUTH_BASE_PATH,
    // Without a configured public URL the origin is the one the request came
    // to (over plain HTTP), which is right for a server used where it runs;
    // behind a TLS proxy, MANGO_PUBLIC_URL says the real one.
    baseURL: options.baseURL ?? {
      allowedHosts: ['*'],
      protocol: 'http' as const,
      // For server-side calls that come with no request (scripts, tests).
      fallback: 'http://127.0.0.1',
    },
    secret: options.secret,
    database: { db: database.db, type: database.kind, transaction: true },
    emailAndPassword: { enabled: true, autoSignIn: true },
    // better-auth's limiter (docs/security.md#rate-limits), counted in the database so that it
    // holds across instances. Its key is the client address `handle` resolved, and the route.
    rateLimit: {
      enabled: attemptsPerMinute > 0,
      storage: 'database' as const,
      ...RATE_LIMIT_MODEL,
      customRules: { '/sign-in/*': attemptRule, '/sign-up/*': attemptRule },
    },
    advanced: { ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    user: { ...AUTH_MODELS.user, additionalFields: USER_ROLE_FIELD },
    session: AUTH_MODELS.session,
    account: AUTH_MODELS.account,
    verification: AUTH_MODELS.verification,
    plugins: [
      // Only for `openApiPaths` (merged into GET /api/openapi); no reference page of its own.
      openAPI({ disableDefaultReference: true }),
      apiKey(
        {
          defaultPrefix: API_KEY_PREFIX,
          // Scripts are the point of keys; a per-key request quota would break them.
          rateLimit: { enabled: false },
        },
        { schema: API_KEY_MODEL },
      ),
    ],
    databaseHooks: {
      user: {
        create: {
          // Sign-ups are serialised (see `handle`), so this count cannot race another sign-up.
          before: async (user, context) => {
            const isFirst = (await countUsers(database, context)) === 0;
            // An admin creating the account, or an invite (checked in `handle`), opens it.
            const grant = currentSignupGrant();
            if (!isFirst && !options.allowSignup && !grant) {
              throw new APIError('FORBIDDEN', {
                code: 'SIGNUP_DISABLED',
                message:
                  'Sign-up is closed on this server: only the first account may sign up. Ask the administrator to set MANGO_ALLOW_SIGNUP=true.',
              });
            }
            return { data: { ...user, role: isFirst ? 'admin' : (grant?.role ?? 'user') } };
          },
        },
      },
      session: {
        create: {
          // A disabled account signs in nowhere (its existing sessions were deleted when disabled).
          before: async (session, context) => {
            if (!(await isDisabled(database, context, session.userId))) return;
            throw new APIError('FORBIDDEN', {
              code: 'ACCOUNT_DISABLED',
              message: 'This account is disabled. Ask an administrator to enable it.',
            });
          },
        },
      },
    },
    telemetry: { enabled: false },
    // better-auth prints the errors of its routes through a console logger of its own
    // (coloured text, outside the JSON log) unless this hook takes them.
    onAPIError: { onError: (error: unknown) => logAuthRouteError(logger, error) },
    logger: {
      level: 'warn' as const,
      log: (level, message, ...args) => {
        const fields = args.length > 0 ? { details: args } : {};
        if (!logger) return;
        if (level === 'error') logger.error(`auth: ${message}`, fields);
        else if (level === 'warn') logger.warn(`auth: ${message}`, fields);
        else logger.debug(`auth: ${message}`, fields);
      },
    },
  } satisfies BetterAuthOptions;
}

/**
 * An error a better-auth route ended with: a refusal (4xx, already answered
 * to the client and in the request's log line) at debug level, anything else
 * as an error.
 */
function logAuthRouteError(logger: Logger | undefined, error: unknown): void {
  if (!logger) return;
  // Read by shape: better-auth and its router each bundle their own APIError class.
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (
    error instanceof Error &&
    error.name === 'APIError' &&
    typeof statusCode === 'number' &&
    statusCode < 500
  ) {
    const authCode = (error as { body?: { code?: unknown } }).body?.code;
    logger.debug(`auth: ${error.message}`, {
      status: statusCode,
      ...(typeof authCode === 'string' ? { authCode } : {}),
    });
    return;
  }
  logger.error('auth: a request failed', { error });
}

function buildBetterAuth(options: AuthOptions) {
  return betterAuth(buildAuthOptions(options));
}

/**
 * Counts users inside better-auth's current transaction when there is one:
 * on SQLite the transaction holds the only connection, so a query beside it
 * would wait for it forever.
 */
async function countUsers(
  database: AppDatabase,
  context: GenericEndpointContext | null,
): Promise<number> {
  if (context) {
    const adapter = await getCurrentAdapter(context.context.adapter);
    return adapter.count({ model: 'user' });
  }
  const row = await database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether the user is disabled, read inside better-auth's transaction when there is one. */
async function isDisabled(
  database: AppDatabase,
  context: GenericEndpointContext | null,
  userId: string,
): Promise<boolean> {
  if (context) {
    const adapter = await getCurrentAdapter(context.context.adapter);
    const user = await adapter.findOne<{ disabledAt?: Date | string | null }>({
      model: 'user',
      where: [{ field: 'id', value: userId }],
    });
    return Boolean(user?.disabledAt);
  }
  const row = await database.db
    .selectFrom('users')
    .select('disabled_at')
    .where('id', '=', userId)
    .executeTakeFirst();
  return Boolean(row?.disabled_at);
}

function readBearer(headers: Headers): string | undefined {
  const header = headers.get('authorization');
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

function toAuthenticatedUser(user: {
  id: string;
  email: string;
  name: string;
  role?: string | null;
}): AuthenticatedUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role === 'admin' ? 'admin' : 'user',
  };
}

export function createAuth(options: AuthOptions): AuthService {
  const auth = buildBetterAuth(options);
  const { database } = options;
  const invites = createInviteStore(database);
  // Any revocation anywhere forgets every verified credential: the signal
  // does not say whose it was.
  const verified = createFeedBackedCache<AuthenticatedUser>({
    feed: database.changes,
    channel: CREDENTIALS_CHANNEL,
    invalidates: 'all',
    maxEntries: CREDENTIAL_CACHE_ENTRIES,
    ttlMs: CREDENTIAL_CACHE_MS,
  });
  let openApiPaths: Promise<Record<string, unknown>> | undefined;
  const revokeCredentials = async () => {
    verified.forgetAll();
    await database.changes.notify(CREDENTIALS_CHANNEL, 'revoked').catch((error: unknown) => {
      // The revocation stands; other instances forget within CREDENTIAL_CACHE_MS.
      options.logger?.warn('could not signal a revoked credential to other instances', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
  };
  return {
    api: auth.api,
    context: () => auth.$context,
    invites,
    revokeCredentials,
    openApiPaths() {
      openApiPaths ??= (async () => {
        const document = await auth.api.generateOpenAPISchema();
        // better-auth names its paths relative to its base path.
        return Object.fromEntries(
          Object.entries(document.paths).map(([path, item]) => [
            path.startsWith(AUTH_BASE_PATH) ? path : `${AUTH_BASE_PATH}${path}`,
            item,
          ]),
        );
      })();
      return openApiPaths;
    },
    async handle(incoming, peerAddress) {
      const request = withClientAddress(incoming, peerAddress, options.trustedProxies ?? []);
      const path = new URL(request.url).pathname;
      if (request.method === 'POST' && REVOKING_PATH.test(path)) {
        const response = await auth.handler(request);
        await revokeCredentials();
        return toApiErrorFormat(response);
      }
      // The first-account rule counts users before inserting one; holding a
      // lock across sign-ups (across instances on PostgreSQL) makes that atomic.
      if (request.method === 'POST' && path.startsWith(`${AUTH_BASE_PATH}/sign-up/`)) {
        return toApiErrorFormat(await database.withLock('auth:sign-up', () => signUp(request)));
      }
      return toApiErrorFormat(await auth.handler(request));
    },
    async authenticate(headers) {
      const bearer = readBearer(headers);
      // The whole Cookie header is the key: nothing to parse on a hit, and a
      // hit means this exact (signed) header was verified moments ago.
      const cookie = headers.get('cookie');
      const cacheKey = bearer ? `key:${bearer}` : cookie ? `cookie:${cookie}` : undefined;
      if (!cacheKey) return null;
      // Without a live feed a revocation elsewhere could go unheard: verify every time.
      const known = verified.fresh(cacheKey);
      if (known) return known;
      // Requests that miss together (the entry expired under load) share one verification.
      return verified.readShared(cacheKey, async (read) => {
        const user = bearer ? await verifyApiKey(bearer, headers) : await verifySession(headers);
        if (user) read.store(user.user, { ttlMs: user.ttl });
        return user?.user ?? null;
      });
    },
  };

  /** A sign-up, admitted by its invite when it brings one (under the sign-up lock). */
  async function signUp(request: Request): Promise<Response> {
    const token = request.headers.get(INVITE_HEADER)?.trim();
    if (!token) return auth.handler(request);
    const found = await invites.findUsable(token);
    if ('problem' in found) {
      return inviteRefused(
        found.problem === 'unknown'
          ? 'This invite is not known here: check that the whole token was sent.'
          : found.problem === 'used'
            ? 'This invite has been used already: each invite admits one sign-up. Ask the administrator for a new one.'
            : 'This invite has expired. Ask the administrator for a new one.',
      );
    }
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { email?: unknown } | undefined;
    const email = typeof body?.email === 'string' ? body.email.trim().toLowerCase() : undefined;
    if (found.invite.email && found.invite.email !== email) {
      return inviteRefused('This invite is for another e-mail address.');
    }
    const response = await runWithSignupGrant({ role: 'user' }, () => auth.handler(request));
    if (response.ok) {
      const created = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { user?: { id?: string } } | undefined;
      await invites.markUsed(found.invite.id, created?.user?.id ?? null);
    }
    return response;
  }

  async function verifyApiKey(
    key: string,
    headers: Headers,
  ): Promise<{ user: AuthenticatedUser; ttl: number } | null> {
    const result = await auth.api.verifyApiKey({ body: { key }, headers });
    if (!result.valid || !result.key) return null;
    const user = await database.db
      .selectFrom('users')
      .select(['id', 'email', 'name', 'role', 'disabled_at'])
      .where('id', '=', result.key.referenceId)
      .executeTakeFirst();
    // A disabled account's keys are kept (enabling it again brings them back) but refused.
    if (!user || user.disabled_at) return null;
    return { user: toAuthenticatedUser(user), ttl: ttlUntil(result.key.expiresAt) };
  }

  async function verifySession(
    headers: Headers,
  ): Promise<{ user: AuthenticatedUser; ttl: number } | null> {
    const session = await auth.api.getSession({ headers });
    if (!session || session.user.disabledAt) return null;
    return { user: toAuthenticatedUser(session.user), ttl: ttlUntil(session.session.expiresAt) };
  }
}

/** `request` carrying the address the limiter counts by, and never the client's own claim of one. */
function withClientAddress(
  request: Request,
  peerAddress: string | undefined,
  trustedProxies: readonly string[],
): Request {
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_ADDRESS_HEADER);
  const address = resolveClientAddress(
    peerAddress,
    request.headers.get('x-forwarded-for'),
    trustedProxies,
  );
  if (address) headers.set(CLIENT_ADDRESS_HEADER, address);
  return new Request(request, { headers });
}

/** The cache lifetime for a credential that expires at `expiresAt` (never past it). */
function ttlUntil(expiresAt: Date | string | null | undefined): number {
  if (!expiresAt) return CREDENTIAL_CACHE_MS;
  const remaining = new Date(expiresAt).getTime() - Date.now();
  return Math.max(1, Math.min(CREDENTIAL_CACHE_MS, remaining));
}
