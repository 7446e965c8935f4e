/**
 * Who is calling. Every /api route needs a signed-in user except the public
 * ones (health and better-auth's own routes): the check runs for every request
 * before routing, so a route added later is protected without opting in.
 * Routes read the user through `currentUser`.
 */
import { Elysia } from 'elysia';
import { AUTH_BASE_PATH, type AuthenticatedUser, type AuthService } from '../auth/create-auth';
import { unauthorized } from '../errors';
import { getRequestContext } from '../request-context';

const PUBLIC_PATHS = new Set(['/api/health']);

export function isPublicPath(path: string): boolean {
  return (
    PUBLIC_PATHS.has(path) ||
    path === AUTH_BASE_PATH ||
    path.startsWith(`${AUTH_BASE_PATH}/`) ||
    !path.startsWith('/api/')
  );
}

/** The root app's hook: authenticates every non-public request or answers 401. */
export async function authenticateRequest(auth: AuthService, request: Request): Promise<void> {
  const context = getRequestContext(request);
  if (isPublicPath(context.path)) return;
  const user = await auth.authenticate(request.headers);
  if (!user) throw unauthorized();
  context.user = user;
}

/** The signed-in user of a request that passed `authenticateRequest`. */
export function requireUser(request: Request): AuthenticatedUser {
  const user = getRequestContext(request).user;
  // Unreachable when the route is behind the hook; refusing is the safe answer if not.
  if (!user) throw unauthorized();
  return user;
}

/** For route modules: adds `user` to each handler's context. */
export function currentUser() {
  return new Elysia({ name: 'mango/current-user' }).derive({ as: 'scoped' }, ({ request }) => ({
    user: requireUser(request),
  }));
}
