/** How an adapter reaches its provider: every adapter takes a base URL and a key from configuration. */
export interface ProviderConnectionOptions {
  /** Absent for servers that need none (a local Ollama). */
  apiKey?: string;
  /** The provider's base URL as its SDK expects it (OpenAI: ending in `/v1`). */
  baseURL?: string;
  /** SDK retries of 408/409/429/5xx and connection errors before the turn fails (default 2). */
  maxRetries?: number;
  /** Budget of one model call, in milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

export const DEFAULT_PROVIDER_MAX_RETRIES = 2;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 600_000;

/** Client options the `openai` and `@anthropic-ai/sdk` SDKs share, with this server's defaults. */
export function sdkClientOptions(options: ProviderConnectionOptions) {
  return {
    // Local servers such as Ollama need no key, but the SDKs insist on one.
    apiKey: options.apiKey || 'no-key',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_PROVIDER_MAX_RETRIES,
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    logLevel: 'off' as const,
  };
}
