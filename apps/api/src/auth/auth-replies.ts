/**
 * better-auth's replies in the API's own form (docs/errors.md): its error
 * bodies mapped into the one code vocabulary, its limiter's 429 with a
 * standard `Retry-After`, and the invite refusal of sign-up.
 */
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '@mango/shared';

/** better-auth's own codes that a client needs to tell apart, in the API's vocabulary. */
const AUTH_CODES: Readonly<Record<string, ErrorCode>> = {
  SIGNUP_DISABLED: 'signup_disabled',
  INVALID_EMAIL_OR_PASSWORD: 'invalid_email_or_password',
  USER_ALREADY_EXISTS: 'conflict',
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: 'conflict',
  ACCOUNT_DISABLED: 'account_disabled',
  PASSWORD_TOO_SHORT: 'validation_failed',
  PASSWORD_TOO_LONG: 'validation_failed',
  INVALID_EMAIL: 'validation_failed',
};

function codeForAuthStatus(status: number): ErrorCode {
  if (status === 400) return 'invalid_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 422) return 'validation_failed';
  if (status === 429) return 'rate_limited';
  return 'internal_error';
}

/**
 * better-auth answers errors as `{ code, message }`; the API's format is
 * `{ error: { code, message, retryable, details } }` with a code of the one
 * vocabulary: codes a client must tell apart are mapped by name, the rest by
 * status, and better-auth's own code, when it says more, is kept in
 * `details.authCode`. Status and
 * headers (cookies) are kept.
 */
export async function toApiErrorFormat(response: Response): Promise<Response> {
  if (response.status === 429) return rateLimitedReply(response);
  if (response.ok || !response.headers.get('content-type')?.includes('application/json')) {
    return response;
  }
  const text = await response.text();
  let body: { code?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(text) as { code?: unknown; message?: unknown };
  } catch {
    body = undefined;
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (!body || typeof body.message !== 'string' || 'error' in body) {
    return new Response(text, { status: response.status, headers });
  }
  const authCode = typeof body.code === 'string' && body.code !== '' ? body.code : undefined;
  const code = (authCode && AUTH_CODES[authCode]) || codeForAuthStatus(response.status);
  const error: ErrorBody = {
    code,
    message: body.message,
    retryable: ERROR_CODES[code].retryable,
    ...(authCode && authCode.toLowerCase() !== code
      ? { details: { authCode: authCode.toLowerCase() } }
      : {}),
  };
  return new Response(JSON.stringify({ error }), { status: response.status, headers });
}

export function inviteRefused(message: string): Response {
  const error: ErrorBody = { code: 'invalid_invite', message, retryable: false };
  return Response.json({ error }, { status: ERROR_CODES.invalid_invite.status });
}

/**
 * better-auth's limiter answers 429 in plain text with `X-Retry-After`; clients
 * get the API's error body and the standard `Retry-After` header.
 */
function rateLimitedReply(response: Response): Response {
  const seconds = Math.max(1, Number(response.headers.get('x-retry-after')) || 60);
  const error: ErrorBody = {
    code: 'rate_limited',
    message: `Too many attempts from this address: try again in ${seconds} s.`,
    retryable: true,
    details: { retryAfterSeconds: seconds },
  };
  return Response.json(
    { error },
    { status: 429, headers: { 'retry-after': String(seconds), 'x-retry-after': String(seconds) } },
  );
}
