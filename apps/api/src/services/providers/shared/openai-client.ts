/** The `openai` client the OpenAI adapters and image model use, made (and its SDK loaded) on first use. */
import type { ClientOptions, OpenAI } from 'openai';
import { lazySdkClient } from './lazy-sdk-client';

export function lazyOpenAIClient(options: ClientOptions): () => Promise<OpenAI> {
  return lazySdkClient(async () => {
    const { OpenAI } = await import('openai');
    return new OpenAI(options);
  });
}
