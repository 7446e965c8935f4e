/** The `@google/genai` client both Gemini adapters use, made (and its SDK loaded) on first use. */
import type { GoogleGenAI, HttpOptions } from '@google/genai';
import { lazySdkClient } from '../shared/lazy-sdk-client';

export function lazyGeminiClient(
  apiKey: string | undefined,
  httpOptions: HttpOptions,
): () => Promise<GoogleGenAI> {
  return lazySdkClient(async () => {
    const { GoogleGenAI } = await import('@google/genai');
    return new GoogleGenAI({ apiKey: apiKey || 'no-key', httpOptions });
  });
}
