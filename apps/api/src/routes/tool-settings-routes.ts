/**
 * The settings API (docs/http-api.md#tool-settings): `GET /api/settings/tools` and
 * `PUT /api/settings/tools/:toolName`, for the signed-in user only.
 */
import {
  ToolNameParams,
  ToolSettingsDescriptor,
  ToolSettingsError,
  ToolSettingsListResponse,
  UpdateToolSettingsBody,
} from '@mango/shared';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Elysia } from 'elysia';
import type { ToolSettingsService } from '../services/tools/tool-settings-service';
import { currentUser } from './authentication';
import { errorResponses } from './error-responses';

const listResponseCheck = TypeCompiler.Compile(ToolSettingsListResponse);

export function createToolSettingsRoutes(service: ToolSettingsService) {
  // The service hands back the same array while a user's settings are
  // unchanged; its JSON is made (and checked against the contract) once.
  const listJson = new WeakMap<readonly ToolSettingsDescriptor[], string>();
  const toJson = (tools: readonly ToolSettingsDescriptor[]): string => {
    let json = listJson.get(tools);
    if (json === undefined) {
      const body: ToolSettingsListResponse = { tools: [...tools] };
      if (!listResponseCheck.Check(body)) {
        const first = listResponseCheck.Errors(body).First();
        throw new Error(
          `GET /api/settings/tools built a response that breaks its contract at ${first?.path}: ${first?.message}`,
        );
      }
      json = JSON.stringify(body);
      listJson.set(tools, json);
    }
    return json;
  };
  return new Elysia({ prefix: '/settings/tools' })
    .use(currentUser())
    .get(
      '',
      async ({ user }) =>
        new Response(toJson(await service.listToolSettings(user.id)), {
          headers: { 'content-type': 'application/json' },
        }),
      {
        response: { 200: ToolSettingsListResponse, ...errorResponses(401) },
        detail: {
          summary: "Every tool with the signed-in user's effective settings",
          description:
            'Each tool comes with its metadata and parameter descriptors, so a client can draw the settings form.',
          tags: ['Settings'],
        },
      },
    )
    .put(
      '/:toolName',
      ({ user, params, body }) => service.updateToolSettings(user.id, params.toolName, body),
      {
        params: ToolNameParams,
        body: UpdateToolSettingsBody,
        response: {
          200: ToolSettingsDescriptor,
          ...errorResponses(400, 401, 404, 413, 415),
          422: ToolSettingsError,
        },
        detail: {
          summary: "Change one tool's settings",
          description:
            'Switches the tool on or off and/or changes settings; given settings are merged over the saved ones. 422 when a setting is refused or the tool cannot be disabled, 404 for an unknown tool, 400 for a body of the wrong shape.',
          tags: ['Settings'],
        },
      },
    );
}
