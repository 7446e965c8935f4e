/**
 * How an MCP tool is named to a model (docs/mcp.md#mcp-tools-in-turns): `mcp__<slug>__<tool>`,
 * only `[A-Za-z0-9_-]` (what every provider accepts), at most 64 characters.
 * MCP allows 128 characters and dots, so a name that does not fit is
 * sanitised, and one that is still too long keeps its start and ends in a
 * short hash of the original: the same tool gets the same name on every
 * listing, reconnect and restart, which the model's history and the user's
 * tool settings rely on.
 */
import { createHash } from 'node:crypto';

export const MCP_TOOL_PREFIX = 'mcp__';
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

function sanitise(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The exposed name of `toolName` of the server `slug`, before collisions are considered. */
export function exposedToolName(slug: string, toolName: string): string {
  const plain = `${MCP_TOOL_PREFIX}${sanitise(slug)}__${sanitise(toolName)}`;
  if (plain.length <= MAX_TOOL_NAME_LENGTH) return plain;
  return `${plain.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${shortHash(`${slug}\u0000${toolName}`)}`;
}

/**
 * Exposed names for every tool of one server's listing, by original name.
 * Two originals that sanitise to one name (`a.b`, `a_b`) are told apart: a
 * tool whose name needed no change keeps the plain form, the others end in
 * a hash of their original, whatever order the server lists them in.
 */
export function exposedToolNames(slug: string, toolNames: readonly string[]): Map<string, string> {
  const byExposed = new Map<string, string[]>();
  for (const name of toolNames) {
    const exposed = exposedToolName(slug, name);
    byExposed.set(exposed, [...(byExposed.get(exposed) ?? []), name]);
  }
  const result = new Map<string, string>();
  for (const [exposed, originals] of byExposed) {
    if (originals.length === 1) {
      result.set(originals[0] as string, exposed);
      continue;
    }
    for (const original of originals) {
      if (exposed.endsWith(`__${original}`)) {
        result.set(original, exposed);
        continue;
      }
      const base = exposed.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1);
      result.set(original, `${base}_${shortHash(`${slug}\u0000${original}`)}`);
    }
  }
  return result;
}

/** A slug from a server's name: lower case, `[a-z0-9_-]`, at most 40 characters. */
export function slugFromName(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'server'
  );
}
