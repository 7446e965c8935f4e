/** The admin API's granted roots (docs/security.md#system-tools-are-granted): where a user's system tools may reach. */
import { AdminUserParams, GrantedRoots } from '@mango/shared';
import { Elysia } from 'elysia';
import type { GrantedRootsService } from '../../services/admin/granted-roots';
import { errorResponses } from '../error-responses';
import { adminUser } from './admin-user';

export function createAdminRootsRoutes(roots: GrantedRootsService) {
  return new Elysia({ name: 'mango/admin-roots-routes' })
    .use(adminUser())
    .get(
      '/users/:id/roots',
      async ({ params }): Promise<GrantedRoots> => ({ roots: await roots.list(params.id) }),
      {
        params: AdminUserParams,
        response: { 200: GrantedRoots, ...errorResponses(401, 403, 404) },
        detail: { summary: "The directories a user's system tools may reach", tags: ['Admin'] },
      },
    )
    .put(
      '/users/:id/roots',
      async ({ params, body }): Promise<GrantedRoots> => ({
        roots: await roots.replace(params.id, body.roots),
      }),
      {
        params: AdminUserParams,
        body: GrantedRoots,
        response: { 200: GrantedRoots, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
        detail: {
          summary: "Replace the directories a user's system tools may reach (an empty list: none)",
          tags: ['Admin'],
        },
      },
    );
}
