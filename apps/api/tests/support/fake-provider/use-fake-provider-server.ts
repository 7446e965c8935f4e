/**
 * The fake provider server's lifecycle for a test file (test support): one
 * server started before the file's tests, reset before each test (queues,
 * responders and recorded requests) and closed after the last. Call it at the
 * top level of the file, before hooks that use it.
 */
import { afterAll, beforeAll, beforeEach } from 'bun:test';
import { type FakeProviderServer, startFakeProviderServer } from './fake-provider-server';

export function useFakeProviderServer(): FakeProviderServer {
  let server: FakeProviderServer | undefined;
  const current = (): FakeProviderServer => {
    if (!server) throw new Error('The fake provider server runs from beforeAll to afterAll only.');
    return server;
  };
  beforeAll(async () => {
    server = await startFakeProviderServer();
  });
  beforeEach(() => current().reset());
  afterAll(async () => {
    const stopping = server;
    server = undefined;
    await stopping?.close();
  });
  return {
    get url() {
      return current().url;
    },
    baseUrl: (provider) => current().baseUrl(provider),
    enqueue: (provider, ...turns) => current().enqueue(provider, ...turns),
    respondWith: (provider, responder) => current().respondWith(provider, responder),
    requests: (provider) => current().requests(provider),
    serveModels: (provider, list) => current().serveModels(provider, list),
    modelListRequests: (provider) => current().modelListRequests(provider),
    pending: (provider) => current().pending(provider),
    openConnections: () => current().openConnections(),
    reset: () => current().reset(),
    close: () => current().close(),
  };
}
