/**
 * `GET /api/models` (docs/http-api.md#models): the models each configured
 * provider offers, plus the configured ones, with how each provider's listing went.
 */
import { ModelsResponse } from '@mango/shared';
import { Elysia } from 'elysia';
import { getRequestContext } from '../request-context';
import type { ModelCatalog } from '../services/providers/model-catalog';
import { currentUser } from './authentication';
import { errorResponses } from './error-responses';

export function createModelRoutes(models: ModelCatalog) {
  return new Elysia({ name: 'mango/model-routes' })
    .use(currentUser())
    .get(
      '/models',
      ({ request }): Promise<ModelsResponse> =>
        models.list({ requestId: getRequestContext(request).requestId }),
      {
        response: { 200: ModelsResponse, ...errorResponses(401) },
        detail: {
          summary: 'The models each configured provider offers, and the configured ones',
          description:
            "Each provider's own model list (cached; a provider that cannot be asked is reported in providers[] with its error code, never failing the whole list), plus the models named in MANGO_MODELS.",
        },
      },
    );
}
