/**
 * What a client sends to Settings → MCP, checked before anything is stored
 * (docs/mcp.md#settings--mcp): a stdio server is a command on this machine,
 * so only admins (or anyone, for commands in `MANGO_MCP_STDIO_ALLOW`) may
 * create or change one; a remote URL must be http(s) and public unless
 * private ones are allowed; only admins share a server; fields of the other
 * type are refused; a masked secret sent back keeps the stored value.
 */

import { isAbsolute } from 'node:path';
import type { CreateMcpServerBody, UpdateMcpServerBody } from '@mango/shared';
import { ApiError } from '../../errors';
import { checkMcpUrl } from './mcp-fetch';
import type { McpServerRecord } from './mcp-server-record';
import type { McpServerChanges, NewMcpServer } from './mcp-server-repository';
import { slugFromName } from './mcp-tool-names';

/** Who is asking: the user's id and whether they are an admin. */
export interface McpActor {
  id: string;
  role?: string | null;
}

export interface McpPolicy {
  /** Commands anyone may configure as a stdio server (exact match). */
  stdioAllow: readonly string[];
  allowPrivateUrls: boolean;
}

/** What a secret (an env or header value) reads as in every answer. */
export const MASKED_VALUE = '••••••';

const isAdmin = (actor: McpActor) => actor.role === 'admin';

const STDIO_FIELDS = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_FIELDS = ['url', 'headers'] as const;

/** The fields of `fields` that `body` gives a value. */
function given<Field extends string>(
  body: Partial<Record<Field, unknown>>,
  fields: readonly Field[],
): Field[] {
  return fields.filter((field) => body[field] !== undefined);
}

/** A write-only map from a client that shows masked values back: a masked value keeps the stored one. */
function mergeSecrets(
  incoming: Record<string, string>,
  stored: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(incoming).map(([name, value]) => [
      name,
      value === MASKED_VALUE && name in stored ? (stored[name] as string) : value,
    ]),
  );
}

function invalid(field: string, message: string): ApiError {
  return new ApiError('validation_failed', message, { details: { field } });
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd)) throw invalid('cwd', `cwd must be an absolute path; got "${cwd}".`);
}

function refuseSharing(actor: McpActor): void {
  if (!isAdmin(actor))
    throw new ApiError('forbidden', 'Only an admin may share an MCP server with every user.');
}

export function createMcpServerInputChecks(policy: McpPolicy) {
  function refuseStdio(actor: McpActor, command: string | null): void {
    if (isAdmin(actor)) return;
    if (command !== null && policy.stdioAllow.includes(command)) return;
    throw new ApiError(
      'forbidden',
      `A stdio MCP server runs a command on this server's machine, so only an admin may create or change one${
        policy.stdioAllow.length > 0
          ? `, unless its command is one of ${policy.stdioAllow.map((item) => `"${item}"`).join(', ')} (MANGO_MCP_STDIO_ALLOW)`
          : ' (an operator can allow commands for everyone with MANGO_MCP_STDIO_ALLOW)'
      }. Use an http server, or ask an admin.`,
    );
  }

  async function checkUrl(url: string): Promise<void> {
    try {
      await checkMcpUrl(url, { allowPrivateUrls: policy.allowPrivateUrls });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ApiError(
        'validation_failed',
        `The MCP server URL is refused: ${reason}${
          policy.allowPrivateUrls
            ? ''
            : ' For a server on this machine or network, the operator can set MANGO_MCP_ALLOW_PRIVATE_URLS=true.'
        }`,
        { details: { field: 'url' } },
      );
    }
  }

  return {
    /** The stdio or http fields of a new server, checked; fields of the other type are refused. */
    async checkNew(actor: McpActor, body: CreateMcpServerBody): Promise<NewMcpServer> {
      if (body.type === 'stdio') {
        const httpOnly = given(body, HTTP_FIELDS);
        if (httpOnly.length > 0)
          throw invalid(
            httpOnly[0] as string,
            `A stdio server takes command, args, env and cwd; "${httpOnly.join('", "')}" belong to http servers.`,
          );
        if (!body.command?.trim())
          throw invalid(
            'command',
            'A stdio server needs a command (the program to run, without a shell).',
          );
        refuseStdio(actor, body.command);
        if (body.cwd !== undefined) checkCwd(body.cwd);
      } else {
        const stdioOnly = given(body, STDIO_FIELDS);
        if (stdioOnly.length > 0)
          throw invalid(
            stdioOnly[0] as string,
            `An http server takes url and headers; "${stdioOnly.join('", "')}" belong to stdio servers.`,
          );
        if (!body.url) throw invalid('url', 'An http server needs a url (http or https).');
        await checkUrl(body.url);
      }
      if (body.shared) refuseSharing(actor);
      return {
        name: body.name.trim(),
        slug: body.slug ?? slugFromName(body.name),
        type: body.type,
        enabled: body.enabled ?? true,
        command: body.type === 'stdio' ? (body.command ?? null) : null,
        args: body.args ?? [],
        env: body.env ?? {},
        cwd: body.cwd ?? null,
        url: body.type === 'http' ? (body.url ?? null) : null,
        headers: body.headers ?? {},
        shared: body.shared ?? false,
        callTimeoutSeconds: body.callTimeoutSeconds ?? null,
      };
    },

    /** The changes `body` makes to the stored `record`, checked; its type is fixed. */
    async changesFor(
      actor: McpActor,
      record: McpServerRecord,
      body: UpdateMcpServerBody,
    ): Promise<McpServerChanges> {
      const changes: McpServerChanges = {};
      if (body.name !== undefined) changes.name = body.name.trim();
      if (body.enabled !== undefined) changes.enabled = body.enabled;
      if (body.callTimeoutSeconds !== undefined)
        changes.callTimeoutSeconds = body.callTimeoutSeconds;
      if (body.shared !== undefined) {
        refuseSharing(actor);
        changes.shared = body.shared;
      }
      const stdioFields = given(body, STDIO_FIELDS);
      const httpFields = given(body, HTTP_FIELDS);
      if (record.type === 'stdio') {
        if (httpFields.length > 0)
          throw invalid(
            httpFields[0] as string,
            `"${httpFields.join('", "')}" belong to http servers; this one is stdio (the type is fixed).`,
          );
        if (stdioFields.length > 0) refuseStdio(actor, body.command ?? record.command);
        if (body.command !== undefined) changes.command = body.command;
        if (body.args !== undefined) changes.args = body.args;
        if (body.env !== undefined) changes.env = mergeSecrets(body.env, record.env);
        if (body.cwd !== undefined) {
          if (body.cwd !== null) checkCwd(body.cwd);
          changes.cwd = body.cwd;
        }
      } else {
        if (stdioFields.length > 0)
          throw invalid(
            stdioFields[0] as string,
            `"${stdioFields.join('", "')}" belong to stdio servers; this one is http (the type is fixed).`,
          );
        if (body.url !== undefined) {
          await checkUrl(body.url);
          changes.url = body.url;
        }
        if (body.headers !== undefined)
          changes.headers = mergeSecrets(body.headers, record.headers);
      }
      return changes;
    },
  };
}
