/** The admin API's accounts (docs/http-api.md#administration): list, create, disable/enable, role, password. */
import {
  AdminUser,
  AdminUserListResponse,
  AdminUserParams,
  AdminUserWithPassword,
  CreateUserBody,
  ResetPasswordBody,
  UpdateUserBody,
} from '@mango/shared';
import { Elysia } from 'elysia';
import type { UserAdminService } from '../../services/admin/user-admin-service';
import { errorResponses } from '../error-responses';
import { adminUser } from './admin-user';

const detail = (summary: string) => ({ summary, tags: ['Admin'] });

export function createAdminUsersRoutes(users: UserAdminService) {
  return new Elysia({ name: 'mango/admin-users-routes' })
    .use(adminUser())
    .get('/users', async (): Promise<AdminUserListResponse> => ({ users: await users.list() }), {
      response: { 200: AdminUserListResponse, ...errorResponses(401, 403) },
      detail: detail('Every account'),
    })
    .post(
      '/users',
      async ({ body, set }) => {
        const created = await users.create(body);
        set.status = 201;
        return created;
      },
      {
        body: CreateUserBody,
        response: {
          201: AdminUserWithPassword,
          ...errorResponses(400, 401, 403, 409, 413, 415, 422),
        },
        detail: detail('Create an account, whether sign-up is open or not'),
      },
    )
    .patch('/users/:id', ({ params, body, admin }) => users.update(params.id, body, admin.id), {
      params: AdminUserParams,
      body: UpdateUserBody,
      response: { 200: AdminUser, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422) },
      detail: detail('Disable or enable an account, or change its role'),
    })
    .post(
      '/users/:id/password',
      ({ params, body }) => users.resetPassword(params.id, body?.password),
      {
        params: AdminUserParams,
        body: ResetPasswordBody,
        response: {
          200: AdminUserWithPassword,
          ...errorResponses(400, 401, 403, 404, 413, 415, 422),
        },
        detail: detail(
          "Set an account's password (generated when none is given); signs it out everywhere",
        ),
      },
    );
}
