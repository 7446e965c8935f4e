/**
 * A throwaway PostgreSQL server for the test run: `initdb` + `pg_ctl` in a temp
 * directory on a free loopback port, started once per `bun test` process (on
 * first use) and stopped and removed when the run ends. PostgreSQL refuses to
 * run as root, so as root the server runs as the `postgres` user.
 *
 * A missing PostgreSQL is an error, never a skip: the suites that use this
 * promise to run on both databases.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgresServer {
  /** `postgres://…` of the server's maintenance database. */
  url: string;
  port: number;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(): Promise<string>;
  stop(): void;
}

const INSTALL_HINT =
  'PostgreSQL is required by the database tests (they run on SQLite and PostgreSQL). Install it (Debian: `apt-get install postgresql`, or run `.ci/install-system-packages`) so that `initdb` and `pg_ctl` are on PATH or under /usr/lib/postgresql/<version>/bin.';

/** Finds the directory holding `initdb` and `pg_ctl`: PATH first, then Debian's versioned layout. */
export function findPostgresBinaries(): string {
  const onPath = Bun.which('initdb');
  if (onPath && Bun.which('pg_ctl')) return join(onPath, '..');
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const directory = join(debianRoot, version, 'bin');
      if (existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'pg_ctl'))) {
        return directory;
      }
    }
  }
  throw new Error(INSTALL_HINT);
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

function postgresUserIds(): { uid: number; gid: number } {
  const result = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (result.status !== 0 || group.status !== 0) {
    throw new Error(
      `Running as root, the tests start PostgreSQL as the "postgres" user, which does not exist. ${INSTALL_HINT}`,
    );
  }
  return { uid: Number(result.stdout.trim()), gid: Number(group.stdout.trim()) };
}

/** Runs a PostgreSQL program, as the `postgres` user when we are root. */
function runPostgresProgram(program: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const command = asRoot ? 'runuser' : program;
  const commandArgs = asRoot ? ['-u', 'postgres', '--', program, ...args] : args;
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(
      `${program} ${args[0] ?? ''} failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

export async function startTestPostgres(): Promise<TestPostgresServer> {
  const binaries = findPostgresBinaries();
  const root = mkdtempSync(join(tmpdir(), 'mango-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUserIds();
    chownSync(root, uid, gid);
  }
  const dataDirectory = join(root, 'data');
  const port = await findFreePort();
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        runPostgresProgram(join(binaries, 'pg_ctl'), [
          'stop',
          '-D',
          dataDirectory,
          '-m',
          'immediate',
          '-s',
        ]);
      } catch {
        // Already gone; removing the directory is all that is left to do.
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    runPostgresProgram(join(binaries, 'initdb'), [
      '-D',
      dataDirectory,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ]);
    // Durability is pointless for a throwaway cluster; these make it fast.
    const options = [
      `-p ${port}`,
      "-c listen_addresses='127.0.0.1'",
      `-c unix_socket_directories='${root}'`,
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    runPostgresProgram(join(binaries, 'pg_ctl'), [
      'start',
      '-D',
      dataDirectory,
      '-o',
      options,
      '-l',
      join(root, 'server.log'),
      '-w',
      '-s',
    ]);
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
    stop,
    async createDatabase() {
      databaseCounter += 1;
      const name = `mango_test_${process.pid}_${databaseCounter}`;
      const { Client } = await import('pg');
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
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
    shared.then(
      (server) => process.once('exit', () => server.stop()),
      () => {},
    );
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
