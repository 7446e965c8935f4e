/** Who is signed in (better-auth's session), and signing in, up and out. */
import { api } from './api';
import { dropPrefetched } from './prefetch';

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  role?: string;
}

export async function readSession(): Promise<SessionUser | null> {
  const answer = await api<{ user?: SessionUser } | null>('/api/auth/get-session');
  // Nobody is signed in: what the page prefetched was refused; the next reads go to the server.
  if (!answer?.user) dropPrefetched();
  return answer?.user ?? null;
}

export async function signIn(email: string, password: string): Promise<void> {
  await api('/api/auth/sign-in/email', { body: { email, password } });
}

/** Signs up; `invite` is an admin's invite token, for a server whose sign-up is closed. */
export async function signUp(
  name: string,
  email: string,
  password: string,
  invite?: string,
): Promise<void> {
  await api('/api/auth/sign-up/email', {
    body: { name, email, password },
    ...(invite ? { headers: { 'x-invite-token': invite } } : {}),
  });
}

export async function signOut(): Promise<void> {
  await api('/api/auth/sign-out', { body: {} });
}
