/**
 * Which providers this server offers, from environment variables (README.md#configuration).
 * OpenAI, Anthropic and Gemini are offered when their API key is set (the base
 * URL is optional and points the official SDK elsewhere: a proxy, a test
 * server). The OpenAI-compatible adapter is offered when its base URL is set;
 * its key is optional, because local servers such as Ollama need none.
 */
import { ConfigurationError } from '../../errors';
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
