/**
 * Sign-ups that closed sign-up still lets through (docs/security.md#administration):
 * an admin creating an account, or a person holding an invite. The grant is
 * carried in async context from where the sign-up is started to better-auth's
 * user-creation hook, so no header or body field a client could forge says it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface SignupGrant {
  /** The role the new account gets (the first account is always admin). */
  role: 'admin' | 'user';
}

const grants = new AsyncLocalStorage<SignupGrant>();

export function runWithSignupGrant<T>(grant: SignupGrant, task: () => Promise<T>): Promise<T> {
  return grants.run(grant, task);
}

export function currentSignupGrant(): SignupGrant | undefined {
  return grants.getStore();
}
