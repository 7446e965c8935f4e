/**
 * What the web UI benches share: the server with the UI built in
 * `webDirectory`, the fake provider answering as OpenAI, a signed-up user
 * with one chat, and that user's cookies for a browser context.
 */
import type { Chat } from '@mango/shared';
import { createProviderRegistry } from '../apps/api/src/services/providers/provider-registry';
import { startFakeProviderServer } from '../apps/api/tests/support/fake-provider';
import { startTestApp } from '../apps/api/tests/support/test-app';
import { createTestDatabase } from '../apps/api/tests/support/test-databases';

export async function startWebBenchApp(webDirectory: string, chatTitle: string) {
  const fake = await startFakeProviderServer();
  fake.serveModels('openai', { models: [{ id: 'gpt-5' }] });
  const testDatabase = await createTestDatabase('sqlite');
  const app = startTestApp(testDatabase.database, {
    providers: createProviderRegistry({
      openai: { baseURL: fake.baseUrl('openai'), apiKey: 'k', maxRetries: 0 },
    }),
    webDirectory,
  });
  const user = await app.signUp();
  const chat = (await (
    await app.fetch('/api/chats', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai:gpt-5', title: chatTitle }),
      user,
    })
  ).json()) as Chat;
  const cookies = user.cookie.split('; ').map((pair) => {
    const [name, ...rest] = pair.split('=');
    return { name: name as string, value: rest.join('='), url: app.url };
  });
  return {
    fake,
    app,
    chat,
    cookies,
    async stop() {
      await app.stop();
      await fake.close();
      await testDatabase.dispose();
    },
  };
}
