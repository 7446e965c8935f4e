/**
 * Configuration from environment variables (SPEC §16). Bun reads `.env` itself.
 * Invalid values stop the server at start-up with a message naming the variable.
 */

export interface ServerConfig {
  port: number;
  host: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function readPort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3001;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535; got "${raw}".`);
  }
  return port;
}

export function loadServerConfig(
  env: Record<string, string | undefined> = process.env,
): ServerConfig {
  return {
    port: readPort(env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
  };
}
