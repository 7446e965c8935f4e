/**
 * History → Gemini `contents`. A step's function calls are replayed as ONE
 * model turn holding every `functionCall` part exactly as received, with the
 * thought signature Gemini attached (splitting them, or losing the signature,
 * gets a 400 from thinking models). The results follow in one user turn of
 * `functionResponse` parts. Ids are echoed only when Gemini itself sent them;
 * calls made by another provider carry Gemini's documented stand-in signature.
 */
import type { Content, Part } from '@google/genai';
import type { ConversationMessage } from '@mango/shared';
import { normalizeHistory, parseDataUrl } from '../shared/normalize-history';
import { argumentsAsObject } from '../shared/tool-call-ids';

/** Gemini's documented value for function calls whose real signature is unknown (another provider made them). */
export const STAND_IN_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

function geminiMetadata(part: { providerMetadata?: Record<string, Record<string, unknown>> }) {
  const metadata = part.providerMetadata?.gemini;
  return {
    id: typeof metadata?.id === 'string' ? metadata.id : undefined,
    thoughtSignature:
      typeof metadata?.thoughtSignature === 'string' ? metadata.thoughtSignature : undefined,
  };
}

function parseResult(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

export function toGeminiContents(messages: readonly ConversationMessage[]): Content[] {
  const contents: Content[] = [];
  const pushUser = (parts: Part[]) => {
    if (parts.length === 0) return;
    const previous = contents.at(-1);
    if (previous?.role === 'user') previous.parts = [...(previous.parts ?? []), ...parts];
    else contents.push({ role: 'user', parts });
  };
  const history = normalizeHistory(messages);
  const geminiIds = new Map<string, string | undefined>();
  for (const message of history)
    if (message.role === 'assistant')
      for (const part of message.parts)
        if (part.type === 'tool_call') geminiIds.set(part.toolCallId, geminiMetadata(part).id);
  for (const message of history) {
    if (message.role === 'user') {
      pushUser(
        message.parts.flatMap((part): Part[] => {
          if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
          const inline = parseDataUrl(part.url);
          return [
            inline
              ? { inlineData: { mimeType: inline.mediaType, data: inline.data } }
              : { text: `[image: ${part.url}]` },
          ];
        }),
      );
    } else if (message.role === 'assistant') {
      const parts: Part[] = [];
      let firstCall = true;
      for (const part of message.parts) {
        if (part.type === 'text' && part.text !== '') parts.push({ text: part.text });
        else if (part.type === 'image') parts.push({ text: `[image: ${part.url}]` });
        else if (part.type === 'tool_call') {
          const { id, thoughtSignature } = geminiMetadata(part);
          const replayed: Part = {
            functionCall: {
              name: part.name,
              args: argumentsAsObject(part.arguments),
              ...(id ? { id } : {}),
            },
          };
          const fromGemini = part.providerMetadata?.gemini !== undefined;
          if (thoughtSignature) replayed.thoughtSignature = thoughtSignature;
          else if (!fromGemini && firstCall) replayed.thoughtSignature = STAND_IN_THOUGHT_SIGNATURE;
          firstCall = false;
          parts.push(replayed);
        }
      }
      if (parts.length > 0) contents.push({ role: 'model', parts });
    } else {
      pushUser(
        message.parts.map((result) => {
          const id = geminiIds.get(result.toolCallId);
          const value = parseResult(result.content);
          return {
            functionResponse: {
              name: result.name,
              ...(id ? { id } : {}),
              response: result.isError ? { error: value } : { output: value },
            },
          };
        }),
      );
    }
  }
  return contents;
}
