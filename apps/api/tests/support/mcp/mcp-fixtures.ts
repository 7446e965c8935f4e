/**
 * MCP servers for tests: server records for the scenario server over stdio
 * (a real process) and over HTTP, the reference servers from the npm
 * registry, and the counts that prove laziness and sharing (processes started,
 * HTTP sessions opened).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { McpServerRecord } from '../../../src/services/mcp';

export const SCENARIO_STDIO_ENTRY = join(import.meta.dir, 'scenario-server-stdio.ts');

const require = createRequire(import.meta.url);

/** The entry file of a reference MCP server package installed from npm. */
export function referenceServerEntry(
  name: '@modelcontextprotocol/server-everything' | '@modelcontextprotocol/server-filesystem',
): string {
  return join(dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

/** A temp directory where stdio scenario servers leave their marks. */
export function createMarkerDir() {
  const path = mkdtempSync(join(tmpdir(), 'mango-mcp-marks-'));
  const lines = (file: string) =>
    existsSync(join(path, file))
      ? readFileSync(join(path, file), 'utf8').split('\n').filter(Boolean)
      : [];
  return {
    path,
    /** Processes started so far (their pids). */
    starts: () => lines('starts').map(Number),
    /** Calls that saw their cancel. */
    cancels: () => lines('cancels'),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

let counter = 0;

/** A server record as the repository would hand it out (for connection-level tests). */
export function serverRecord(fields: Partial<McpServerRecord> = {}): McpServerRecord {
  counter += 1;
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString();
  return {
    id: `mcp_test_${counter}`,
    ownerId: 'user_1',
    ownerIsAdmin: true,
    name: `Scenario ${counter}`,
    slug: `scenario${counter}`,
    type: 'stdio',
    enabled: true,
    command: process.execPath,
    args: [SCENARIO_STDIO_ENTRY],
    env: {},
    cwd: null,
    url: null,
    headers: {},
    shared: false,
    callTimeoutSeconds: null,
    toolListing: null,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}
