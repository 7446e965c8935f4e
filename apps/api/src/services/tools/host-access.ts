/**
 * System tools are granted, not assumed (docs/security.md#system-tools-are-granted):
 * the tools that touch the server's machine (`reachesHost`) serve an admin
 * anywhere and anyone else only inside the roots an admin granted them. This
 * module says when such a tool is unavailable and which roots bind a call.
 */
import type { HostAccess, RegisteredTool, ToolScope } from './types';

export const NO_GRANTED_ROOTS_REASON =
  'An admin has not granted you any directory on this server, so the tools that touch its files and processes are off for you. An admin can grant one (PUT /api/admin/users/:id/roots).';

/** Why a host-reaching tool cannot serve this scope's user, or undefined when it can. */
export function hostAccessUnavailableReason(
  tool: RegisteredTool,
  scope: ToolScope,
): string | undefined {
  if (!tool.reachesHost) return undefined;
  const access = scope.hostAccess;
  if (access?.kind === 'granted' && access.roots.length === 0) return NO_GRANTED_ROOTS_REASON;
  return undefined;
}

/** The roots that bind a call (`ToolContext.grantedRoots`); undefined when none do (an admin). */
export function grantedRootsOf(access: HostAccess | undefined): readonly string[] | undefined {
  return access?.kind === 'granted' ? access.roots : undefined;
}
