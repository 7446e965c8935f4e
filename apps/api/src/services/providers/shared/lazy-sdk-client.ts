/**
 * An SDK client made on first use, its SDK loaded by a dynamic `import()`
 * then. The SDKs are large module graphs (the Anthropic SDK and
 * `@google/genai` are tens of thousands of heap objects each), and every
 * full garbage collection walks what is loaded: a server loads only the SDKs
 * of the providers it calls (docs/chat-turns.md#what-a-full-collection-costs).
 * One client is made however many callers ask at once; a failed attempt
 * (the SDK could not be loaded) is not kept, so the next call tries again.
 */
export function lazySdkClient<Client>(make: () => Promise<Client>): () => Promise<Client> {
  let client: Promise<Client> | undefined;
  return () => {
    client ??= make().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
}
