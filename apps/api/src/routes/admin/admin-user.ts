/**
 * The admin routes' guard: every route under /api/admin needs a signed-in
 * admin; anyone else gets 403 `forbidden` (401 without a user, as elsewhere).
 * Each admin route file uses it, so a file added beside them is guarded by
 * using it too.
 */
import { Elysia } from 'elysia';
import type { AuthenticatedUser } from '../../auth/create-auth';
import { ApiError } from '../../errors';
import { requireUser } from '../authentication';

export function requireAdmin(request: Request): AuthenticatedUser {
  const user = requireUser(request);
  if (user.role !== 'admin') {
    throw new ApiError('forbidden', 'Only an admin may use the admin API (/api/admin).');
  }
  return user;
}

/** For admin route modules: adds `admin` (the signed-in admin) to each handler's context. */
export function adminUser() {
  return new Elysia({ name: 'mango/admin-user' }).derive({ as: 'scoped' }, ({ request }) => ({
    admin: requireAdmin(request),
  }));
}
