/**
 * The environment a shell command receives (docs/tools/shell.md#shell-tools): the server's own,
 * minus the server's configuration (always), minus anything secret-shaped
 * (unless the user let it through by name) and minus what the user withheld, plus settings that keep commands from waiting
 * on a pager or a credential prompt nobody will answer.
 */

/** Name fragments that mark a variable as a secret (matched case-insensitively). */
export const SECRET_NAME_FRAGMENTS: readonly string[] = [
  'API_KEY',
  'SECRET',
  'TOKEN',
  'PASSWORD',
  'CREDENTIAL',
  'PRIVATE_KEY',
  'ACCESS_KEY',
];

/**
 * The server's own configuration: it never reaches a shell, whatever its name
 * looks like and whatever `allowedEnvVars` says (`DATABASE_URL` carries the
 * database password but matches no secret fragment). Every `MANGO_*` variable
 * counts too.
 */
export const SERVER_CONFIGURATION_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'BETTER_AUTH_SECRET',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'GEMINI_API_KEY',
  'GEMINI_BASE_URL',
  'OPENAI_COMPATIBLE_API_KEY',
  'OPENAI_COMPATIBLE_BASE_URL',
];
const SERVER_CONFIGURATION_PREFIX = 'MANGO_';

export function isServerConfigurationName(name: string): boolean {
  return (
    SERVER_CONFIGURATION_VARIABLES.includes(name) || name.startsWith(SERVER_CONFIGURATION_PREFIX)
  );
}

/** Always set, whatever the server's environment or the settings say. */
export const FORCED_SHELL_ENVIRONMENT: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};

export function isSecretShapedName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME_FRAGMENTS.some((fragment) => upper.includes(fragment));
}

export interface ShellEnvironmentOptions {
  /** Secret-shaped names passed through anyway (exact names). */
  allowedEnvVars?: readonly string[];
  /** Names withheld in addition to the secret-shaped ones (exact names); wins over allowed. */
  deniedEnvVars?: readonly string[];
  /** Variables added last (the run marker); they override everything else. */
  extra?: Readonly<Record<string, string>>;
}

export interface ShellEnvironment {
  env: Record<string, string>;
  /** Names present in the base environment that the command does not see. */
  withheld: string[];
}

export function buildShellEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  options: ShellEnvironmentOptions = {},
): ShellEnvironment {
  const allowed = new Set(options.allowedEnvVars ?? []);
  const denied = new Set(options.deniedEnvVars ?? []);
  const env: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const secret = isSecretShapedName(name) && !allowed.has(name);
    if (secret || denied.has(name) || isServerConfigurationName(name)) {
      withheld.push(name);
      continue;
    }
    env[name] = value;
  }
  Object.assign(env, FORCED_SHELL_ENVIRONMENT, options.extra);
  return { env, withheld };
}
