/**
 * The error replies a route declares in the OpenAPI document: every status a
 * route may answer with besides its success, each with the one error body.
 */
import { ErrorResponse } from '@mango/shared';

export function errorResponses<const Status extends number>(
  ...statuses: Status[]
): Record<Status, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorResponse])) as Record<
    Status,
    typeof ErrorResponse
  >;
}
