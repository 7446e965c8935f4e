/**
 * Which providers this server offers, from environment variables (README.md#configuration).
 * OpenAI, Anthropic and Gemini are offered when their API key is set (the base
 * URL is optional and points the official SDK elsewhere: a proxy, a test
 * server). The OpenAI-compatible adapter is offered when its base URL is set;
 * its key is optional, because local servers such as Ollama need none.
 */
import type { ModelEntry, ModelKind } from '@mango/shared';
import { ConfigurationError } from '../../errors';
import { parseModelName } from './provider-registry';
import type { ProviderConnectionOptions } from './shared/provider-connection';
import type { ProviderId } from './spec';

export type ProvidersConfig = Partial<Record<ProviderId, ProviderConnectionOptions>>;

/** A provider's environment variables (key, base URL) are invalid. */
export class ProviderConfigError extends ConfigurationError {}

function readUrl(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderConfigError(
      `${name} must be an http(s) URL such as http://localhost:11434/v1; got "${raw}".`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProviderConfigError(`${name} must be an http(s) URL; got "${raw}".`);
  return raw.replace(/\/+$/, '');
}

const read = (env: Record<string, string | undefined>, name: string) =>
  env[name]?.trim() || undefined;

export function loadProvidersConfig(
  env: Record<string, string | undefined> = process.env,
): ProvidersConfig {
  const config: ProvidersConfig = {};
  const keyed: [ProviderId, string, string][] = [
    ['openai', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'],
    ['anthropic', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'],
    ['gemini', 'GEMINI_API_KEY', 'GEMINI_BASE_URL'],
  ];
  for (const [id, keyName, urlName] of keyed) {
    const baseURL = readUrl(env, urlName);
    const apiKey = read(env, keyName);
    if (!apiKey) continue;
    config[id] = { apiKey, ...(baseURL ? { baseURL } : {}) };
  }
  const compatibleUrl = readUrl(env, 'OPENAI_COMPATIBLE_BASE_URL');
  if (compatibleUrl) {
    const apiKey = read(env, 'OPENAI_COMPATIBLE_API_KEY');
    config['openai-compatible'] = { baseURL: compatibleUrl, ...(apiKey ? { apiKey } : {}) };
  }
  return config;
}

/**
 * Models named in a comma-separated `provider:modelId` list variable
 * (`MANGO_MODELS` for chat models), offered in addition to what each provider
 * lists itself (docs/http-api.md#models). Each must name a configured provider.
 */
export function readConfiguredModels(
  env: Record<string, string | undefined>,
  variable: string,
  kind: ModelKind,
  providers: ProvidersConfig,
): ModelEntry[] {
  const raw = env[variable]?.trim();
  if (!raw) return [];
  const entries = new Map<string, ModelEntry>();
  for (const name of raw.split(',').map((item) => item.trim())) {
    if (name === '') continue;
    let parsed: ReturnType<typeof parseModelName>;
    try {
      parsed = parseModelName(name);
    } catch (error) {
      throw new ProviderConfigError(
        `${variable} must be a comma-separated list of provider:modelId names (for example "openai:gpt-5,openai-compatible:llama3.1"): ${(error as Error).message}`,
      );
    }
    if (!providers[parsed.providerId])
      throw new ProviderConfigError(
        `${variable} names "${name}", but the provider "${parsed.providerId}" is not configured; configure it (README.md#configuration) or remove the name.`,
      );
    const id = `${parsed.providerId}:${parsed.modelId}`;
    entries.set(id, { id, provider: parsed.providerId, modelId: parsed.modelId, kind });
  }
  return [...entries.values()];
}

/** The chat models `MANGO_MODELS` names. */
export function loadConfiguredModels(
  providers: ProvidersConfig,
  env: Record<string, string | undefined> = process.env,
): ModelEntry[] {
  return readConfiguredModels(env, 'MANGO_MODELS', 'chat', providers);
}
