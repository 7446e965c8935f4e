/**
 * Configuration from environment variables (README.md#configuration). Bun reads `.env` itself.
 * Invalid values stop the server at start-up with a message naming the variable.
 */

import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { invalidTrustedProxies } from './auth/client-address';
import type { DatabaseConfig } from './db/database';
import { ConfigurationError } from './errors';
import type { LogLevel } from './logger';
import { DEFAULT_TURN_LIMITS, type TurnLimits } from './services/chat/turn-rate-limit';
import type { McpSettings } from './services/mcp/mcp-settings';

export interface ServerConfig {
  port: number;
  host: string;
  /** Absolute path of the data directory (SQLite file, generated auth secret). */
  dataDir: string;
  database: DatabaseConfig;
  /** Whether accounts after the first may sign up. */
  allowSignup: boolean;
  /** `BETTER_AUTH_SECRET` when set; otherwise one is generated and kept in the data directory. */
  authSecret?: string;
  logLevel: LogLevel;
  /** The URL clients reach the server at, when it differs from where it listens (a proxy). */
  publicUrl?: string;
  /** Origins of other pages allowed to change things with a session cookie (`MANGO_TRUSTED_ORIGINS`). */
  trustedOrigins: string[];
  /** A whole turn's time limit (`MANGO_TURN_TIMEOUT_SECONDS`, default 1800). */
  turnTimeoutSeconds: number;
  /** Provider silence that ends a model call (`MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS`, default 300). */
  providerIdleTimeoutSeconds: number;
  /** Names this instance in the turn claims it holds, the same across restarts (`MANGO_INSTANCE_ID`). */
  instanceId: string;
  /** Sign-in and sign-up attempts per client address and minute; 0 = no limit. */
  authAttemptsPerMinute: number;
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client. */
  trustedProxies: string[];
  /** Per-user turn limits. */
  turnLimits: TurnLimits;
  /** Where image bytes live: in the database (every instance serves them) or `<dataDir>/images`. */
  imageStore: ImageStoreKind;
  /** MCP servers' rules and budgets (docs/mcp.md). */
  mcp: McpSettings;
}

export const IMAGE_STORE_KINDS = ['database', 'directory'] as const;
export type ImageStoreKind = (typeof IMAGE_STORE_KINDS)[number];

/** An environment variable of the server's own settings is invalid. */
export class ConfigError extends ConfigurationError {}

export const SQLITE_FILE_NAME = 'mango.db';
/** Sign-in (and, separately, sign-up) attempts per client address and minute, unless configured. */
export const DEFAULT_AUTH_ATTEMPTS_PER_MINUTE = 10;
export const MIN_AUTH_SECRET_LENGTH = 32;
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

function readPort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3001;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535; got "${raw}".`);
  }
  return port;
}

function readBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(
    `${name} must be true or false (also accepted: 1/0, yes/no, on/off); got "${raw}".`,
  );
}

function readSeconds(
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min: number; max: number },
): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new ConfigError(
      `${name} must be a whole number of seconds from ${range.min} to ${range.max}; got "${raw}".`,
    );
  }
  return value;
}

function readInstanceId(raw: string | undefined, port: number): string {
  const value = raw?.trim();
  if (!value) return `${hostname()}:${port}`;
  if (!/^[\w.:@-]{1,200}$/.test(value)) {
    throw new ConfigError(
      `MANGO_INSTANCE_ID must be 1-200 letters, digits or . _ : @ - (a name unique to this instance that stays the same across restarts); got "${raw}".`,
    );
  }
  return value;
}

function readDatabase(raw: string | undefined, dataDir: string): DatabaseConfig {
  const url = raw?.trim();
  if (!url) return { kind: 'sqlite', path: join(dataDir, SQLITE_FILE_NAME) };
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError(
      'DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); leave it unset to use the embedded SQLite database.',
    );
  }
  return { kind: 'postgres', url };
}

function readSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.length < MIN_AUTH_SECRET_LENGTH) {
    throw new ConfigError(
      `BETTER_AUTH_SECRET must be at least ${MIN_AUTH_SECRET_LENGTH} characters long (it signs sessions); got ${raw.length}. Generate one with \`openssl rand -base64 32\`, or unset it to have one generated in the data directory.`,
    );
  }
  return raw;
}

function readLimit(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < 0 || value > 1_000_000) {
    throw new ConfigError(
      `${name} must be a whole number from 0 (no limit) to 1000000; got "${raw}".`,
    );
  }
  return value;
}

function readTrustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = invalidTrustedProxies(entries);
  if (invalid.length > 0) {
    throw new ConfigError(
      `MANGO_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges (e.g. 10.0.0.0/8,::1); these are neither: ${invalid.join(', ')}.`,
    );
  }
  return entries;
}

function readLogLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw.trim() === '') return 'info';
  const value = raw.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(value)) {
    throw new ConfigError(`MANGO_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}".`);
  }
  return value;
}

function readImageStore(raw: string | undefined): ImageStoreKind {
  const value = raw?.trim().toLowerCase();
  if (!value) return 'database';
  if (!(IMAGE_STORE_KINDS as readonly string[]).includes(value))
    throw new ConfigError(
      `MANGO_IMAGE_STORE must be "database" (the default: every instance serves every image) or "directory" (files in the data directory, for a single instance); got "${raw}".`,
    );
  return value as ImageStoreKind;
}

function readCommandList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function readMcpSettings(env: Record<string, string | undefined>): McpSettings {
  return {
    stdioAllow: readCommandList(env.MANGO_MCP_STDIO_ALLOW),
    allowPrivateUrls: readBoolean(
      'MANGO_MCP_ALLOW_PRIVATE_URLS',
      env.MANGO_MCP_ALLOW_PRIVATE_URLS,
      false,
    ),
    connectBudgetMs:
      readSeconds('MANGO_MCP_CONNECT_BUDGET_SECONDS', env.MANGO_MCP_CONNECT_BUDGET_SECONDS, 5, {
        min: 1,
        max: 300,
      }) * 1000,
    connectTimeoutMs:
      readSeconds('MANGO_MCP_CONNECT_TIMEOUT_SECONDS', env.MANGO_MCP_CONNECT_TIMEOUT_SECONDS, 30, {
        min: 1,
        max: 600,
      }) * 1000,
    callTimeoutSeconds: readSeconds(
      'MANGO_MCP_CALL_TIMEOUT_SECONDS',
      env.MANGO_MCP_CALL_TIMEOUT_SECONDS,
      60,
      { min: 1, max: 3600 },
    ),
    idleTimeoutMs:
      readSeconds('MANGO_MCP_IDLE_TIMEOUT_SECONDS', env.MANGO_MCP_IDLE_TIMEOUT_SECONDS, 900, {
        min: 10,
        max: 86_400,
      }) * 1000,
  };
}

function readPublicUrl(raw: string | undefined): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `MANGO_PUBLIC_URL must be the http(s) URL clients use to reach the server, e.g. https://mango.example.com; got "${raw}".`,
    );
  }
  return url.origin;
}

function readTrustedOrigins(raw: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const value = entry.trim();
    if (value === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (
      !url ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.origin !== value.replace(/\/$/, '')
    )
      throw new ConfigError(
        `MANGO_TRUSTED_ORIGINS must be comma-separated origins (scheme, host and port, no path), e.g. https://app.example.com; got "${value}".`,
      );
    origins.push(url.origin);
  }
  return origins;
}

export function loadServerConfig(
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): ServerConfig {
  const rawDataDir = env.MANGO_DATA_DIR?.trim() || './data';
  const dataDir = isAbsolute(rawDataDir) ? rawDataDir : resolve(cwd, rawDataDir);
  const secret = readSecret(env.BETTER_AUTH_SECRET);
  const publicUrl = readPublicUrl(env.MANGO_PUBLIC_URL);
  const port = readPort(env.PORT);
  return {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir,
    database: readDatabase(env.DATABASE_URL, dataDir),
    allowSignup: readBoolean('MANGO_ALLOW_SIGNUP', env.MANGO_ALLOW_SIGNUP, false),
    ...(secret === undefined ? {} : { authSecret: secret }),
    logLevel: readLogLevel(env.MANGO_LOG_LEVEL),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    trustedOrigins: readTrustedOrigins(env.MANGO_TRUSTED_ORIGINS),
    turnTimeoutSeconds: readSeconds(
      'MANGO_TURN_TIMEOUT_SECONDS',
      env.MANGO_TURN_TIMEOUT_SECONDS,
      1800,
      {
        min: 10,
        max: 86_400,
      },
    ),
    providerIdleTimeoutSeconds: readSeconds(
      'MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS',
      env.MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS,
      300,
      { min: 5, max: 3600 },
    ),
    instanceId: readInstanceId(env.MANGO_INSTANCE_ID, port),
    authAttemptsPerMinute: readLimit(
      'MANGO_AUTH_ATTEMPTS_PER_MINUTE',
      env.MANGO_AUTH_ATTEMPTS_PER_MINUTE,
      DEFAULT_AUTH_ATTEMPTS_PER_MINUTE,
    ),
    trustedProxies: readTrustedProxies(env.MANGO_TRUSTED_PROXIES),
    turnLimits: {
      startsPerMinute: readLimit(
        'MANGO_TURNS_PER_MINUTE',
        env.MANGO_TURNS_PER_MINUTE,
        DEFAULT_TURN_LIMITS.startsPerMinute,
      ),
      concurrent: readLimit(
        'MANGO_CONCURRENT_TURNS',
        env.MANGO_CONCURRENT_TURNS,
        DEFAULT_TURN_LIMITS.concurrent,
      ),
    },
    imageStore: readImageStore(env.MANGO_IMAGE_STORE),
    mcp: readMcpSettings(env),
  };
}
