/**
 * better-auth's limiter on sign-in and sign-up (docs/security.md#rate-limits),
 * over HTTP on two instances sharing one database: ten attempts per client
 * address and minute, the 11th answers 429 with Retry-After, the count holds
 * across instances, and a client cannot escape it by claiming another address.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { DEFAULT_AUTH_ATTEMPTS_PER_MINUTE } from '../../../src/config';
import { startTestApp, TEST_PASSWORD, type TestApp, type TestUser } from '../../support/test-app';
import { describeEachDatabase } from '../../support/test-databases';

const signInBody = (email: string, password: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email, password }),
});

describeEachDatabase('sign-in rate limit', (_kind, current) => {
  let first: TestApp;
  let second: TestApp;
  let behindProxy: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    const { database } = current();
    const options = { authAttemptsPerMinute: DEFAULT_AUTH_ATTEMPTS_PER_MINUTE };
    first = startTestApp(database, options);
    second = startTestApp(database, options);
    // A proxy on loopback forwards for its clients.
    behindProxy = startTestApp(database, { ...options, trustedProxies: ['127.0.0.1'] });
    user = await first.signUp();
  });
  afterAll(async () => {
    await first.stop();
    await second.stop();
    await behindProxy.stop();
  });

  test('the 11th wrong password in a minute answers 429 with Retry-After, counted across instances', async () => {
    expect(DEFAULT_AUTH_ATTEMPTS_PER_MINUTE).toBe(10);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const app = attempt % 2 === 0 ? second : first;
      const response = await app.fetch(
        '/api/auth/sign-in/email',
        signInBody(user.email, 'wrong password'),
      );
      expect(response.status).toBe(401);
    }
    const eleventh = await first.fetch(
      '/api/auth/sign-in/email',
      signInBody(user.email, 'wrong password'),
    );
    expect(eleventh.status).toBe(429);
    const retryAfter = Number(eleventh.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await eleventh.json()) as {
      error: { code: string; retryable: boolean; details: Record<string, unknown> };
    };
    expect(body.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      details: { retryAfterSeconds: retryAfter },
    });
    // The right password waits too: the limit is on attempts, not on failures.
    const right = await second.fetch(
      '/api/auth/sign-in/email',
      signInBody(user.email, TEST_PASSWORD),
    );
    expect(right.status).toBe(429);
    // Routes that are not sign-in or sign-up are not held up.
    expect((await first.fetch('/api/auth/get-session', { user })).status).toBe(200);
  });

  test('a client claiming other addresses in X-Forwarded-For is still counted by its own', async () => {
    const spoofed = await first.fetch('/api/auth/sign-in/email', {
      ...signInBody(user.email, TEST_PASSWORD),
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': '203.0.113.7',
        'x-mango-client-address': '203.0.113.8',
      },
    });
    expect(spoofed.status).toBe(429);
  });

  test('behind a trusted proxy each forwarded client has its own count', async () => {
    const from = (address: string) => ({
      ...signInBody(user.email, TEST_PASSWORD),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    });
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect(
        (await behindProxy.fetch('/api/auth/sign-in/email', from('198.51.100.1'))).status,
      ).toBe(200);
    }
    expect((await behindProxy.fetch('/api/auth/sign-in/email', from('198.51.100.1'))).status).toBe(
      429,
    );
    expect((await behindProxy.fetch('/api/auth/sign-in/email', from('198.51.100.2'))).status).toBe(
      200,
    );
  });

  test('sign-up is limited the same way, on its own count', async () => {
    const signUp = (index: number) =>
      first.fetch('/api/auth/sign-up/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `limited-${index}-${process.pid}@example.test`,
          password: TEST_PASSWORD,
          name: 'Limited',
        }),
      });
    // One sign-up (the first user's) already counted.
    for (let index = 2; index <= 10; index += 1) expect((await signUp(index)).status).toBe(200);
    const refused = await signUp(11);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });
});
