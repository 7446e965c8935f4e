import { type Static, Type } from '@sinclair/typebox';

/**
 * The one vocabulary of error codes. Every failure the server reports — an
 * HTTP error reply, an `error` event of a turn stream, the error result a model
 * reads after a failed tool call, the `errorCode` stored on a tool call — uses
 * one of these codes, so a client can switch on it. Each code has one HTTP
 * status (used when the error ends a request), whether trying the same thing
 * again later may work (the default of the `retryable` flag; an error may say
 * otherwise), and a meaning. Codes are stable: new ones may be added, existing
 * ones are never renamed or given another meaning.
 */
export interface ErrorCodeInfo {
  status: number;
  retryable: boolean;
  meaning: string;
}

export const ERROR_CODES = {
  // The request itself
  invalid_request: {
    status: 400,
    retryable: false,
    meaning:
      'The request could not be understood: a body that is not JSON or not of the documented shape, a tampered cookie. On a turn stream: the provider refused the request as malformed (its 400, 404 or 422).',
  },
  validation_failed: {
    status: 422,
    retryable: false,
    meaning:
      'A value was well-formed but not acceptable: a tool argument of the wrong type or range, an unknown model name, a working directory that does not exist. `details` names the field or argument.',
  },
  invalid_tool_settings: {
    status: 422,
    retryable: false,
    meaning:
      'A tool setting was refused: unknown name, wrong type, out of range, or switching off a tool that cannot be switched off. `details.toolName` and `details.key` name it.',
  },
  payload_too_large: {
    status: 413,
    retryable: false,
    meaning:
      'The request body is larger than its route accepts; `details.maxBytes` says how large it may be.',
  },
  unsupported_media_type: {
    status: 415,
    retryable: false,
    meaning:
      'The route takes a JSON body and the request did not say it sent one: send `Content-Type: application/json`.',
  },
  // Who is asking
  unauthorized: {
    status: 401,
    retryable: false,
    meaning: 'No signed-in user: send the session cookie or an API key (`Authorization: Bearer`).',
  },
  invalid_email_or_password: {
    status: 401,
    retryable: false,
    meaning: 'Sign-in with an e-mail address and password that do not match an account.',
  },
  forbidden: {
    status: 403,
    retryable: false,
    meaning: 'The signed-in user may not do this (for example an admin-only action).',
  },
  signup_disabled: {
    status: 403,
    retryable: false,
    meaning:
      'Sign-up is closed on this server (`MANGO_ALLOW_SIGNUP`); only the first account may sign up.',
  },
  account_disabled: {
    status: 403,
    retryable: false,
    meaning: 'The account is disabled by an administrator: it cannot sign in until it is enabled.',
  },
  invalid_invite: {
    status: 403,
    retryable: false,
    meaning:
      'A sign-up brought an invite that is unknown, used, expired, or made for another e-mail address.',
  },
  permission_denied: {
    status: 403,
    retryable: false,
    meaning:
      'The path policy refused a path: outside the allowed paths, inside a denied path, outside the working directory, or one of the server’s own files.',
  },
  // What is asked for
  not_found: {
    status: 404,
    retryable: false,
    meaning:
      'No such thing for this user: a chat, a route, a file. Another user’s chat answers this too.',
  },
  unknown_tool: {
    status: 404,
    retryable: false,
    meaning: 'No tool of that name exists for this user.',
  },
  conflict: {
    status: 409,
    retryable: true,
    meaning:
      'The request clashes with the current state, e.g. a turn is already running in the chat.',
  },
  file_not_read: {
    status: 409,
    retryable: false,
    meaning: 'An overwrite or edit of a file this chat has not read completely: read it first.',
  },
  stale_file: {
    status: 409,
    retryable: false,
    meaning: 'An overwrite or edit of a file that changed since this chat read it: read it again.',
  },
  tool_disabled: {
    status: 409,
    retryable: false,
    meaning: 'The tool is switched off for this user in Settings → Tools.',
  },
  tool_unavailable: {
    status: 409,
    retryable: false,
    meaning:
      'The tool exists but its source cannot serve it now (a missing dependency, a server that is down); `details.reason` says why.',
  },
  aborted: {
    status: 409,
    retryable: false,
    meaning: 'Cancelled before it finished: the user cancelled the turn, or the server shut down.',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    meaning: 'Too many requests, here or at the model provider: wait and try again.',
  },
  // Running it
  timeout: {
    status: 504,
    retryable: true,
    meaning: 'A tool call ran out of its time budget (`timeoutSeconds`) and was stopped.',
  },
  execution_failed: {
    status: 500,
    retryable: false,
    meaning: 'A tool ran and failed; the message says how.',
  },
  internal_error: {
    status: 500,
    retryable: true,
    meaning:
      'This server failed unexpectedly. The message is generic and names a request id (`requestId`); the details are in the server log under that id.',
  },
  // The model provider behind a turn
  provider_unavailable: {
    status: 502,
    retryable: true,
    meaning: 'The model provider is down or overloaded (its 5xx).',
  },
  provider_timeout: {
    status: 504,
    retryable: true,
    meaning: 'The model provider did not answer in time.',
  },
  connection_failed: {
    status: 502,
    retryable: true,
    meaning: 'The model provider could not be reached (DNS, refused connection, TLS).',
  },
  stream_interrupted: {
    status: 502,
    retryable: true,
    meaning: 'The provider’s stream ended before the provider said it was done.',
  },
  invalid_chunk: {
    status: 502,
    retryable: true,
    meaning: 'The provider sent a chunk that is not JSON or not of its documented shape.',
  },
  authentication_failed: {
    status: 502,
    retryable: false,
    meaning:
      'The model provider refused this server’s credentials (its 401/403): the operator must fix the API key.',
  },
  provider_error: {
    status: 502,
    retryable: false,
    meaning: 'The model provider failed in a way none of the codes above describe.',
  },
  content_policy_violation: {
    status: 422,
    retryable: false,
    meaning:
      'The model provider’s safety system refused the prompt or what it produced (OpenAI `moderation_blocked`, Gemini `IMAGE_SAFETY`): change the request rather than sending it again.',
  },
  quota_exceeded: {
    status: 429,
    retryable: false,
    meaning:
      'The model provider’s account is out of quota or credit (OpenAI `insufficient_quota`): the operator must add credit; trying again does not help.',
  },
  upstream_error: {
    status: 502,
    retryable: true,
    meaning: 'A service this server depends on answered with an error.',
  },
  service_unavailable: {
    status: 503,
    retryable: true,
    meaning: 'The server cannot serve this now (starting up, shutting down, a dependency missing).',
  },
  invalid_configuration: {
    status: 500,
    retryable: false,
    meaning:
      'The server’s configuration (environment variables) is invalid; reported at start-up, never to a client.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

// `Unsafe` states the static type of a union built from a list (inferring it
// from `TUnion<TLiteral[]>` works for TypeBox but not for Elysia's route types).
export const ErrorCode = Type.Unsafe<ErrorCode>(
  Type.Union(
    ERROR_CODE_LIST.map((code) => Type.Literal(code)),
    { description: 'A stable, machine-readable code; see the error code table in docs/errors.md.' },
  ),
);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The HTTP status an error of this code answers with (500 for anything that is not a code). */
export function statusForErrorCode(code: string): number {
  return isErrorCode(code) ? ERROR_CODES[code].status : 500;
}

export const ErrorDetails = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Facts the code alone does not carry: the field or argument that was refused, the tool, the provider status.',
});
export type ErrorDetails = Static<typeof ErrorDetails>;

/** One error as every client sees it (the HTTP reply's `error`, a stream's `error` event). */
export const ErrorBody = Type.Object({
  code: ErrorCode,
  message: Type.String({ description: 'What was wrong and what to do about it.' }),
  retryable: Type.Boolean({
    description: 'True when the same request may succeed if simply sent again later.',
  }),
  details: Type.Optional(ErrorDetails),
  requestId: Type.Optional(
    Type.String({ description: 'The id to look for in the server log (unexpected failures).' }),
  ),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** Every error the API returns: `{ error: { code, message, retryable, details?, requestId? } }`. */
export const ErrorResponse = Type.Object({ error: ErrorBody }, { $id: 'ErrorResponse' });
export type ErrorResponse = Static<typeof ErrorResponse>;
