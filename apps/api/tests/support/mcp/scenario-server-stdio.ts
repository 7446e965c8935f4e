/**
 * The scenario server over stdio (test support). Behaviour comes from its
 * environment — which also shows that a configured env reaches the server:
 * MCP_MARKER_DIR (each start appends its pid to `starts`, each noticed cancel to
 * `cancels`), MCP_PAGE_SIZE, MCP_HANG_ON_INITIALIZE=1 (never answers), MCP_EXIT_AT_START=1.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createScenarioServer } from './scenario-server';

const markerDir = process.env.MCP_MARKER_DIR;
if (markerDir) appendFileSync(join(markerDir, 'starts'), `${process.pid}\n`);
if (process.env.MCP_EXIT_AT_START === '1') {
  console.error('scenario-server: missing API key (on purpose)');
  process.exit(2);
}
if (process.env.MCP_HANG_ON_INITIALIZE === '1') {
  // Reads requests and answers none of them.
  process.stdin.resume();
} else {
  const server = createScenarioServer({
    ...(process.env.MCP_PAGE_SIZE ? { pageSize: Number(process.env.MCP_PAGE_SIZE) } : {}),
    ...(markerDir ? { markerFile: join(markerDir, 'cancels') } : {}),
  });
  await server.connect(new StdioServerTransport());
  console.error(`scenario-server ready (env names: ${Object.keys(process.env).sort().join(',')})`);
}
