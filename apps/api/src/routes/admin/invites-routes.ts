/** The admin API's invites (docs/http-api.md#administration): one sign-up each while sign-up is closed. */
import { CreatedInvite, CreateInviteBody, InviteListResponse } from '@mango/shared';
import { Elysia } from 'elysia';
import type { InviteStore } from '../../auth/invites';
import { errorResponses } from '../error-responses';
import { adminUser } from './admin-user';

export function createAdminInvitesRoutes(invites: InviteStore) {
  return new Elysia({ name: 'mango/admin-invites-routes' })
    .use(adminUser())
    .get('/invites', async (): Promise<InviteListResponse> => ({ invites: await invites.list() }), {
      response: { 200: InviteListResponse, ...errorResponses(401, 403) },
      detail: { summary: 'Every invite, used or not', tags: ['Admin'] },
    })
    .post(
      '/invites',
      async ({ body, admin, set }) => {
        const created = await invites.create({
          createdBy: admin.id,
          ...(body?.email ? { email: body.email } : {}),
          ...(body?.expiresInHours ? { expiresInHours: body.expiresInHours } : {}),
        });
        set.status = 201;
        return created;
      },
      {
        body: CreateInviteBody,
        response: { 201: CreatedInvite, ...errorResponses(400, 401, 403, 413, 415) },
        detail: {
          summary: 'Make an invite: its token lets one person sign up while sign-up is closed',
          tags: ['Admin'],
        },
      },
    );
}
