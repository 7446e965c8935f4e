/**
 * better-auth's models under this schema's names (`db/migrations/0001-accounts.ts`):
 * plural snake_case tables and snake_case columns, like every other table. A
 * test asks better-auth's own migration planner whether the migrated database
 * satisfies these options, so the two cannot drift apart.
 */

export const AUTH_MODELS = {
  user: {
    modelName: 'users',
    fields: {
      emailVerified: 'email_verified',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  session: {
    modelName: 'sessions',
    fields: {
      userId: 'user_id',
      expiresAt: 'expires_at',
      ipAddress: 'ip_address',
      userAgent: 'user_agent',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  account: {
    modelName: 'accounts',
    fields: {
      userId: 'user_id',
      accountId: 'account_id',
      providerId: 'provider_id',
      accessToken: 'access_token',
      refreshToken: 'refresh_token',
      idToken: 'id_token',
      accessTokenExpiresAt: 'access_token_expires_at',
      refreshTokenExpiresAt: 'refresh_token_expires_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  verification: {
    modelName: 'verifications',
    fields: {
      expiresAt: 'expires_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
} as const;

/** better-auth's limiter counters (`rateLimit` model) under this schema's names. */
export const RATE_LIMIT_MODEL = {
  modelName: 'rate_limits',
  fields: { lastRequest: 'last_request' },
} as const;

/** The API key plugin's model (`@better-auth/api-key`). */
export const API_KEY_MODEL = {
  apikey: {
    modelName: 'api_keys',
    fields: {
      configId: 'config_id',
      referenceId: 'reference_id',
      refillInterval: 'refill_interval',
      refillAmount: 'refill_amount',
      lastRefillAt: 'last_refill_at',
      rateLimitEnabled: 'rate_limit_enabled',
      rateLimitTimeWindow: 'rate_limit_time_window',
      rateLimitMax: 'rate_limit_max',
      requestCount: 'request_count',
      lastRequest: 'last_request',
      expiresAt: 'expires_at',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
} as const;

/**
 * The user columns better-auth does not know about: the role (`admin` for the
 * first account) and when an admin disabled the account (null while enabled).
 */
export const USER_ROLE_FIELD = {
  role: { type: 'string', required: false, defaultValue: 'user', input: false },
  disabledAt: { type: 'date', required: false, input: false, fieldName: 'disabled_at' },
} as const;
