/** Signing up a bench's user over HTTP, and giving it an API key (the benches that start a real server). */

export interface BenchUser {
  userId: string;
  /** The session's `Cookie` header. */
  cookie: string;
}

/** Signs up a user; the server's first account is its admin, any later one a plain user. */
export async function signUpBenchUser(
  url: string,
  email = 'bench@example.test',
): Promise<BenchUser> {
  const response = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({
      name: 'Bench',
      email,
      password: 'bench password 1',
    }),
  });
  if (!response.ok) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const { user } = (await response.json()) as { user: { id: string } };
  const cookie = response.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  return { userId: user.id, cookie };
}

export async function createBenchApiKey(
  url: string,
  cookie: string,
  name: string,
): Promise<string> {
  const created = await fetch(`${url}/api/auth/api-key/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: url },
    body: JSON.stringify({ name }),
  });
  if (!created.ok) throw new Error(`API key failed: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}
