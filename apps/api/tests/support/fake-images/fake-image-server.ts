/**
 * A fake image provider for tests: a real HTTP server on loopback speaking
 * OpenAI Images (`POST /v1/images/generations`, `b64_json` with `usage`, or
 * the older `url` shape with `revised_prompt`, the URL served back by this
 * server) and Gemini image output (`POST /v1beta/models/{m}:generateContent`,
 * `inlineData` parts, optionally a `thought` draft first). The official SDKs
 * are pointed at it. It validates what the
 * real services refuse (`response_format` on a GPT image model, `n` out of
 * range, `candidateCount` above 1), answers each request from a script
 * (refusals, quota, rate limit, a hang), and records every request, including
 * whether the client aborted it before it was answered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestPng } from '../images/test-png';

export type FakeImageProvider = 'openai' | 'gemini';

export type FakeImageAnswer =
  /** An image (made from the prompt and a counter, so each differs). */
  | {
      kind: 'image';
      outputFormat?: 'png' | 'jpeg' | 'webp';
      thoughtFirst?: boolean;
      /** These bytes instead of a small made-up PNG (the benches' large images). */
      bytes?: Uint8Array;
    }
  /** OpenAI's DALL·E shape: `data[].url` (served by this server) and `revised_prompt`. */
  | { kind: 'url'; url?: string }
  /** A safety refusal: OpenAI 400 `moderation_blocked`; Gemini `finishReason: IMAGE_SAFETY`. */
  | { kind: 'moderation' }
  /** OpenAI 429 `insufficient_quota`. */
  | { kind: 'quota' }
  /** 429: OpenAI `rate_limit_exceeded`, Gemini `RESOURCE_EXHAUSTED`. */
  | { kind: 'rate_limit' }
  /** Gemini answers text and no image. */
  | { kind: 'text_only' }
  /** Never answers; the request is recorded as aborted when the client gives up. */
  | { kind: 'hang' };

export interface RecordedImageRequest {
  provider: FakeImageProvider;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary provider request fields.
  body: any;
  /** True once the client closed the connection before an answer was sent. */
  aborted: boolean;
  /** Resolves when the client aborts the request (never, if it is answered). */
  abortedSignal: Promise<void>;
}

export interface FakeImageServer {
  url: string;
  /** The base URL each SDK is given (`/v1` for OpenAI; the root for Gemini). */
  baseUrl(provider: FakeImageProvider): string;
  enqueue(provider: FakeImageProvider, ...answers: FakeImageAnswer[]): void;
  requests(provider?: FakeImageProvider): RecordedImageRequest[];
  /** Bytes of every image answered, in order (what a test compares stored images with). */
  served(): Uint8Array[];
  reset(): void;
  close(): Promise<void>;
}

const GPT_QUALITIES = new Set(['low', 'medium', 'high', 'auto']);

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function openAIError(status: number, error: Record<string, unknown>) {
  return [status, { error: { param: null, ...error } }] as const;
}

export async function startFakeImageServer(): Promise<FakeImageServer> {
  const queues: Record<FakeImageProvider, FakeImageAnswer[]> = { openai: [], gemini: [] };
  const recorded: RecordedImageRequest[] = [];
  const files = new Map<string, Uint8Array>();
  let served: Uint8Array[] = [];
  let counter = 0;
  let base = '';

  const makeImage = (prompt: string, given?: Uint8Array) => {
    counter += 1;
    const bytes = given ?? createTestPng(`${prompt}#${counter}`);
    served.push(bytes);
    return bytes;
  };

  const answerOpenAI = (body: Record<string, unknown>, answer: FakeImageAnswer) => {
    const model = String(body.model ?? '');
    const gpt = model.startsWith('gpt-image');
    if (gpt && body.response_format !== undefined)
      return openAIError(400, {
        message: "Unknown parameter: 'response_format'.",
        type: 'invalid_request_error',
        param: 'response_format',
        code: 'unknown_parameter',
      });
    const n = body.n ?? 1;
    if (typeof n !== 'number' || n < 1 || n > 10)
      return openAIError(400, {
        message: `Invalid 'n': ${n}.`,
        type: 'invalid_request_error',
        code: 'invalid_value',
      });
    if (gpt && body.quality !== undefined && !GPT_QUALITIES.has(String(body.quality)))
      return openAIError(400, {
        message: `Invalid 'quality'.`,
        type: 'invalid_request_error',
        code: 'invalid_value',
      });
    if (answer.kind === 'moderation')
      return [
        400,
        {
          error: {
            message:
              'Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID req_x. safety_violations=[sexual].',
            type: 'image_generation_user_error',
            param: null,
            code: 'moderation_blocked',
          },
          moderation_details: { moderation_stage: 'input', categories: ['sexual'] },
        },
      ] as const;
    if (answer.kind === 'quota')
      return openAIError(429, {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      });
    if (answer.kind === 'rate_limit')
      return openAIError(429, {
        message: 'Rate limit reached for images per minute.',
        type: 'requests',
        code: 'rate_limit_exceeded',
      });
    const prompt = String(body.prompt ?? '');
    const data = Array.from({ length: n }, () => {
      const bytes = makeImage(prompt, answer.kind === 'image' ? answer.bytes : undefined);
      if (answer.kind === 'url') {
        const id = `file-${counter}.png`;
        files.set(id, bytes);
        return { url: answer.url ?? `${base}/files/${id}`, revised_prompt: `${prompt} (revised)` };
      }
      return { b64_json: Buffer.from(bytes).toString('base64') };
    });
    const format = answer.kind === 'image' ? (answer.outputFormat ?? 'png') : 'png';
    return [
      200,
      {
        created: Math.floor(Date.now() / 1000),
        data,
        background: 'opaque',
        output_format: format,
        quality: body.quality ?? 'auto',
        size: body.size ?? '1024x1024',
        usage: {
          input_tokens: 50,
          input_tokens_details: { text_tokens: 50, image_tokens: 0 },
          output_tokens: 1056 * n,
          output_tokens_details: { image_tokens: 1056 * n, text_tokens: 0 },
          total_tokens: 50 + 1056 * n,
        },
      },
    ] as const;
  };

  const answerGemini = (model: string, body: Record<string, unknown>, answer: FakeImageAnswer) => {
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    if (typeof config.candidateCount === 'number' && config.candidateCount > 1)
      return [
        400,
        {
          error: {
            code: 400,
            message: `Multiple candidates is not enabled for models/${model}`,
            status: 'INVALID_ARGUMENT',
          },
        },
      ] as const;
    if (answer.kind === 'rate_limit' || answer.kind === 'quota')
      return [
        429,
        {
          error: {
            code: 429,
            message: 'Resource has been exhausted (e.g. check quota).',
            status: 'RESOURCE_EXHAUSTED',
            details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '26s' }],
          },
        },
      ] as const;
    const usageMetadata = {
      promptTokenCount: 12,
      candidatesTokenCount: 1290,
      totalTokenCount: 1302,
    };
    const contents = (body.contents ?? []) as { parts?: { text?: string }[] }[];
    const prompt = contents
      .flatMap((content) => content.parts ?? [])
      .map((part) => part.text ?? '')
      .join('');
    if (answer.kind === 'moderation')
      return [
        200,
        {
          candidates: [
            { content: { role: 'model', parts: [] }, finishReason: 'IMAGE_SAFETY', index: 0 },
          ],
          usageMetadata,
          modelVersion: model,
        },
      ] as const;
    if (answer.kind === 'text_only')
      return [
        200,
        {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'I can only describe it in words.' }] },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          usageMetadata,
          modelVersion: model,
        },
      ] as const;
    const parts: unknown[] = [{ text: 'Here is your image.' }];
    if (answer.kind === 'image' && answer.thoughtFirst)
      parts.unshift({
        inlineData: {
          mimeType: 'image/png',
          data: Buffer.from(createTestPng('draft')).toString('base64'),
        },
        thought: true,
      });
    parts.push({
      inlineData: {
        mimeType: 'image/png',
        data: Buffer.from(
          makeImage(prompt, answer.kind === 'image' ? answer.bytes : undefined),
        ).toString('base64'),
      },
    });
    return [
      200,
      {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata,
        modelVersion: model,
        responseId: `resp-${counter}`,
      },
    ] as const;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    if (request.method === 'GET' && path.startsWith('/files/')) {
      const bytes = files.get(path.slice('/files/'.length));
      if (!bytes) return sendJson(response, 404, { error: 'no such file' });
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.byteLength });
      response.end(bytes);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    // biome-ignore lint/suspicious/noExplicitAny: a parsed request body.
    let body: any = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return sendJson(response, 400, { error: { message: 'body is not JSON' } });
    }
    const gemini = path.match(/^\/v1beta\/models\/([^/:]+):generateContent$/);
    const provider: FakeImageProvider | undefined =
      path === '/v1/images/generations' ? 'openai' : gemini ? 'gemini' : undefined;
    if (!provider) return sendJson(response, 404, { error: { message: `no route ${path}` } });
    let markAborted = () => {};
    const entry: RecordedImageRequest = {
      provider,
      path,
      body,
      aborted: false,
      abortedSignal: new Promise<void>((resolve) => {
        markAborted = resolve;
      }),
    };
    recorded.push(entry);
    response.on('close', () => {
      if (!response.writableFinished) {
        entry.aborted = true;
        markAborted();
      }
    });
    const answer = queues[provider].shift() ?? { kind: 'image' };
    if (answer.kind === 'hang') return;
    const [status, payload] =
      provider === 'openai'
        ? answerOpenAI(body, answer)
        : answerGemini(decodeURIComponent(gemini?.[1] as string), body, answer);
    sendJson(response, status, payload);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    baseUrl: (provider) => (provider === 'openai' ? `${base}/v1` : base),
    enqueue: (provider, ...answers) => {
      queues[provider].push(...answers);
    },
    requests: (provider) => recorded.filter((entry) => !provider || entry.provider === provider),
    served: () => [...served],
    reset: () => {
      queues.openai = [];
      queues.gemini = [];
      recorded.length = 0;
      files.clear();
      served = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
