/**
 * The administration command line (docs/security.md#the-command-line):
 * `npm run admin -- <command>`, on the database the configuration names
 * (the same environment and `.env` as `npm start`), for when no admin can
 * sign in. It runs the same code as the admin API.
 */
import { resolveAuthSecret } from '../auth/auth-secret';
import { createAuth } from '../auth/create-auth';
import { loadServerConfig } from '../config';
import { type AppDatabase, openDatabase } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { isAppError } from '../errors';
import { silentLogger } from '../logger';
import { createGrantedRoots, type GrantedRootsService } from '../services/admin/granted-roots';
import {
  createUserAdminService,
  type UserAdminService,
} from '../services/admin/user-admin-service';

export const ADMIN_USAGE = `Usage: npm run admin -- <command>

  list-users                                   every account: e-mail, role, state
  create-user <email> [--name N] [--admin] [--password P]
                                               a new account (password generated unless given)
  reset-password <email> [--password P]        a new password (generated unless given);
                                               signs the account out everywhere
  disable <email>                              the account can no longer sign in
  enable <email>                               it can again
  make-admin <email>                           give the account the admin role
  invite [--email E] [--hours H]               a token that lets one person sign up
  roots <email>                                the directories the account's system tools may reach
  grant-roots <email> [<directory>...]         replace them (none given: take them all away)
`;

class UsageError extends Error {}

interface Parsed {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
}

function parse(args: readonly string[]): Parsed {
  const [command = '', ...rest] = args;
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (name === 'admin') {
      flags.set(name, true);
      continue;
    }
    const value = rest[index + 1];
    if (value === undefined || value.startsWith('--'))
      throw new UsageError(`--${name} needs a value.`);
    flags.set(name, value);
    index += 1;
  }
  return { command, positional, flags };
}

function stringFlag(parsed: Parsed, name: string): string | undefined {
  const value = parsed.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

function emailArgument(parsed: Parsed): string {
  const email = parsed.positional[0];
  if (!email) throw new UsageError(`${parsed.command} needs an e-mail address.`);
  return email;
}

async function run(
  parsed: Parsed,
  users: UserAdminService,
  database: AppDatabase,
  invite: (email?: string, hours?: number) => Promise<string>,
  print: (line: string) => void,
  roots: GrantedRootsService,
): Promise<void> {
  switch (parsed.command) {
    case 'roots':
    case 'grant-roots': {
      const user = await users.findByEmail(emailArgument(parsed));
      const granted =
        parsed.command === 'roots'
          ? await roots.list(user.id)
          : await roots.replace(user.id, parsed.positional.slice(1));
      if (user.role === 'admin')
        print(`${user.email} is an admin: their system tools reach anywhere.`);
      print(
        granted.length === 0
          ? `${user.email} has no granted root.`
          : `${user.email} may reach:\n${granted.join('\n')}`,
      );
      return;
    }
    case 'list-users': {
      for (const user of await users.list()) {
        print(
          `${user.email}\t${user.role}\t${user.disabled ? 'disabled' : 'enabled'}\t${user.createdAt}`,
        );
      }
      return;
    }
    case 'create-user': {
      const password = stringFlag(parsed, 'password');
      const name = stringFlag(parsed, 'name');
      const { user, generatedPassword } = await users.create({
        email: emailArgument(parsed),
        ...(name ? { name } : {}),
        ...(password ? { password } : {}),
        role: parsed.flags.has('admin') ? 'admin' : 'user',
      });
      print(`Created ${user.email} (${user.role}).`);
      if (generatedPassword) print(`Password: ${generatedPassword}`);
      return;
    }
    case 'reset-password': {
      const password = stringFlag(parsed, 'password');
      const user = await users.findByEmail(emailArgument(parsed));
      const { generatedPassword } = await users.resetPassword(user.id, password);
      print(`Password of ${user.email} reset; its sessions are signed out.`);
      if (generatedPassword) print(`Password: ${generatedPassword}`);
      return;
    }
    case 'disable':
    case 'enable': {
      const user = await users.findByEmail(emailArgument(parsed));
      await users.update(user.id, { disabled: parsed.command === 'disable' });
      print(`${user.email} is ${parsed.command}d.`);
      if (parsed.command === 'disable' && database.kind === 'sqlite') {
        print('A running server may still accept a session it verified in the last 30 s.');
      }
      return;
    }
    case 'make-admin': {
      const user = await users.findByEmail(emailArgument(parsed));
      await users.update(user.id, { role: 'admin' });
      print(`${user.email} is an admin.`);
      return;
    }
    case 'invite': {
      const hours = stringFlag(parsed, 'hours');
      const count = hours === undefined ? undefined : Number(hours);
      if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > 720)) {
        throw new UsageError('--hours must be a whole number from 1 to 720.');
      }
      const token = await invite(stringFlag(parsed, 'email'), count);
      print(`Invite token: ${token}`);
      print('Sign up with it in the X-Invite-Token header of POST /api/auth/sign-up/email.');
      return;
    }
    default:
      throw new UsageError(
        parsed.command ? `Unknown command "${parsed.command}".` : 'No command given.',
      );
  }
}

/** Runs one command; returns the exit code. */
export async function main(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: (line: string) => void = (line) => console.log(line),
  printError: (line: string) => void = (line) => console.error(line),
): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parse(args);
    if (!parsed.command || parsed.command === 'help' || parsed.command === '--help') {
      print(ADMIN_USAGE);
      return parsed.command ? 0 : 2;
    }
  } catch (error) {
    printError(`${(error as Error).message}\n\n${ADMIN_USAGE}`);
    return 2;
  }
  let database: AppDatabase | undefined;
  try {
    const config = loadServerConfig(env);
    database = openDatabase(config.database);
    await migrateToLatest(database);
    const auth = createAuth({
      database,
      secret: resolveAuthSecret(config.authSecret, config.dataDir),
      allowSignup: config.allowSignup,
      logger: silentLogger,
    });
    const users = createUserAdminService({ database, auth });
    const invite = async (email?: string, hours?: number) =>
      (
        await auth.invites.create({
          createdBy: null,
          ...(email ? { email } : {}),
          ...(hours ? { expiresInHours: hours } : {}),
        })
      ).token;
    const roots = createGrantedRoots({ database, protectedPaths: [config.dataDir] });
    await run(parsed, users, database, invite, print, roots);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      printError(`${error.message}\n\n${ADMIN_USAGE}`);
      return 2;
    }
    printError(isAppError(error) ? error.message : `Failed: ${(error as Error).message ?? error}`);
    return 1;
  } finally {
    await database?.close();
  }
}

if (import.meta.main) {
  process.exit(await main(process.argv.slice(2)));
}
