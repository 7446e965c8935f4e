/**
 * The secret that signs sessions: `BETTER_AUTH_SECRET` when set, otherwise one
 * generated on first start and kept in the data directory (readable by the
 * server's user only), so sessions survive restarts with zero configuration.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, MIN_AUTH_SECRET_LENGTH } from '../config';

export const AUTH_SECRET_FILE_NAME = 'auth-secret';

export function resolveAuthSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, AUTH_SECRET_FILE_NAME);
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length < MIN_AUTH_SECRET_LENGTH) {
      throw new ConfigError(
        `${file} holds a secret shorter than ${MIN_AUTH_SECRET_LENGTH} characters. Delete the file to have a new one generated (signing everyone out), or set BETTER_AUTH_SECRET.`,
      );
    }
    return stored;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    // `wx`: if another process created it first, keep theirs.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return readFileSync(file, 'utf8').trim();
    throw error;
  }
  chmodSync(file, 0o600);
  return secret;
}
