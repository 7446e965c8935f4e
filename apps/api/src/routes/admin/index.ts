/**
 * The admin API under /api/admin (docs/http-api.md#administration): one file
 * per group of routes, each guarded by `adminUser()`; a new group is one more
 * file here and one more `.use`.
 */
import { Elysia } from 'elysia';
import type { InviteStore } from '../../auth/invites';
import type { GrantedRootsService } from '../../services/admin/granted-roots';
import type { UserAdminService } from '../../services/admin/user-admin-service';
import { createAdminInvitesRoutes } from './invites-routes';
import { createAdminRootsRoutes } from './roots-routes';
import { createAdminUsersRoutes } from './users-routes';

export interface AdminRoutesDependencies {
  users: UserAdminService;
  invites: InviteStore;
  roots: GrantedRootsService;
}

export function createAdminRoutes(deps: AdminRoutesDependencies) {
  return new Elysia({ name: 'mango/admin-routes', prefix: '/admin' })
    .use(createAdminUsersRoutes(deps.users))
    .use(createAdminInvitesRoutes(deps.invites))
    .use(createAdminRootsRoutes(deps.roots));
}
