/**
 * One tool call as a card: a one-line summary (status, name, a glimpse of the
 * arguments, duration) that opens onto the arguments as pretty JSON, the live
 * progress, the result (long ones shortened until asked), the error's code and
 * message, and the images the call made.
 */
import type { ToolCallCard } from '@mango/shared';
import { useState } from 'preact/hooks';
import { useMarkdownRenderer } from './use-markdown';

const RESULT_PREVIEW_CHARS = 2000;

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function errorOf(content: string): { code?: string; message: string } {
  try {
    const parsed = JSON.parse(content) as { error?: { code?: string; message?: string } };
    if (parsed.error?.message) return { code: parsed.error.code, message: parsed.error.message };
  } catch {
    // Not the error shape: show it as it is.
  }
  return { message: content };
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const STATUS_LABEL: Record<ToolCallCard['status'], string> = {
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  aborted: 'aborted',
};

function glimpse(argumentsText: string): string {
  const flat = argumentsText.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

export function ToolCard({ call }: { call: ToolCallCard }) {
  const [showAll, setShowAll] = useState(false);
  // Highlights the arguments once the markdown renderer's chunk is in (plain text before).
  const renderer = useMarkdownRenderer();
  const server = call.name.startsWith('mcp__') ? call.name.split('__')[1] : undefined;
  const error = call.result?.isError ? errorOf(call.result.content) : undefined;
  const result = call.result && !call.result.isError ? prettyJson(call.result.content) : undefined;
  const long = result !== undefined && result.length > RESULT_PREVIEW_CHARS;
  const status = call.streamingArguments ? 'preparing' : STATUS_LABEL[call.status];
  return (
    <div class="tool-call">
      <details
        class={`tool-card status-${call.status}`}
        data-testid="tool-card"
        data-status={call.status}
        data-tool={call.name}
      >
        <summary>
          <span class={`status-dot ${call.status}`} aria-hidden="true" />
          <span class="tool-name">{call.name}</span>
          {server && <span class="badge">MCP {server}</span>}
          <span class="tool-glimpse">{glimpse(call.arguments)}</span>
          <span class="tool-status" data-testid="tool-status">
            {status}
          </span>
          {call.durationMs !== undefined && (
            <span class="tool-duration" data-testid="tool-duration">
              {formatDuration(call.durationMs)}
            </span>
          )}
        </summary>
        <div class="tool-body">
          <h4>Arguments</h4>
          <pre class="json">
            {renderer ? (
              <code
                class="hljs"
                dangerouslySetInnerHTML={{
                  __html: renderer.highlight(prettyJson(call.arguments) || '{}', 'json'),
                }}
              />
            ) : (
              <code class="hljs">{prettyJson(call.arguments) || '{}'}</code>
            )}
          </pre>
          {call.progress && call.status === 'running' && (
            <p class="tool-progress" data-testid="tool-progress">
              {call.progress.message ?? call.progress.type}
            </p>
          )}
          {error && (
            <p class="tool-error" role="alert">
              {(call.errorCode ?? error.code) && <code>{call.errorCode ?? error.code}</code>}{' '}
              {error.message}
            </p>
          )}
          {result !== undefined && (
            <>
              <h4>Result</h4>
              <pre class="json result">
                {long && !showAll ? `${result.slice(0, RESULT_PREVIEW_CHARS)}…` : result}
              </pre>
              {long && (
                <button type="button" class="link" onClick={() => setShowAll(!showAll)}>
                  {showAll
                    ? 'Show less'
                    : `Show all (${result.length.toLocaleString()} characters)`}
                </button>
              )}
            </>
          )}
          {call.imageFailures.map((failure) => (
            <p class="tool-error" key={failure.index}>
              Image {failure.index + 1}: <code>{failure.code}</code> {failure.message}
            </p>
          ))}
        </div>
      </details>
      {call.images.length > 0 && (
        <div class="tool-images">
          {call.images.map((image) => (
            <a href={image.url} target="_blank" rel="noopener" key={image.url}>
              <img src={image.url} alt={`Made by ${call.name}`} loading="lazy" />
            </a>
          ))}
        </div>
      )}
    </div>
  );
}
