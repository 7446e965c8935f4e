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
