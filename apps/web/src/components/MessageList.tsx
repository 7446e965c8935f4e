/** The chat's messages as folded by `foldChat`, and how the latest turn ended. */
import type { ChatView, ChatViewMessage, ChatViewPart, ChatViewTurn } from '@mango/shared';
import { Markdown } from './Markdown';
import { ToolCard } from './ToolCard';

function Part({ part, streaming }: { part: ChatViewPart; streaming: boolean }) {
  switch (part.type) {
    case 'text':
      return <Markdown text={part.text} />;
    case 'reasoning':
      return (
        <details class="reasoning" data-testid="reasoning">
          <summary>{streaming ? 'Reasoning…' : 'Reasoning'}</summary>
          <div class="reasoning-text">{part.text}</div>
        </details>
      );
    case 'tool_call':
      return <ToolCard call={part.call} />;
    case 'image':
      return (
        <a href={part.url} target="_blank" rel="noopener" class="inline-image">
          <img src={part.url} alt="" loading="lazy" />
        </a>
      );
  }
}

function Message({ message, streaming }: { message: ChatViewMessage; streaming: boolean }) {
  if (message.role === 'user')
    return (
      <article class="message user" data-testid="message-user">
        {message.parts.map((part, index) =>
          part.type === 'text' ? (
            <p class="user-text" key={index}>
              {part.text}
            </p>
          ) : (
            <Part part={part} streaming={false} key={index} />
          ),
        )}
      </article>
    );
  return (
    <article class="message assistant" data-testid="message-assistant">
      {message.parts.map((part, index) => (
        <Part
          part={part}
          streaming={streaming && index === message.parts.length - 1}
          key={part.type === 'tool_call' ? part.call.toolCallId : index}
        />
      ))}
      {streaming && message.parts.length === 0 && <p class="thinking">Waiting for the model…</p>}
    </article>
  );
}

export interface TurnEndingProps {
  turn: ChatViewTurn;
  onRetry?: () => void;
}

/** The MCP servers a turn went on without (they did not connect in time, or failed). */
export function SkippedSources({ turn }: { turn: ChatViewTurn }) {
  if (!turn.skippedSources?.length) return null;
  return (
    <div class="notice" data-testid="skipped-sources">
      {turn.skippedSources.map((source) => (
        <p key={source.sourceId}>
          <strong>{source.sourceName}</strong> was left out of this turn: {source.message}{' '}
          <a href="/settings/mcp">Settings → MCP</a>
        </p>
      ))}
    </div>
  );
}

export function TurnEnding({ turn, onRetry }: TurnEndingProps) {
  if (turn.state !== 'done') return <SkippedSources turn={turn} />;
  return (
    <div class="turn-ending" data-testid="turn-ending" data-status={turn.status}>
      <SkippedSources turn={turn} />
      {turn.iterationLimit && (
        <div class="notice">
          <strong>Iteration limit reached.</strong> {turn.iterationLimit.message} Raise “Max
          iterations” or ask the model to go on.
        </div>
      )}
      {turn.error && (
        <div class="notice error" role="alert">
          <strong>
            The turn failed: <code>{turn.error.code}</code>
          </strong>{' '}
          {turn.error.message}{' '}
          {turn.error.retryable ? (
            onRetry && (
              <button type="button" onClick={onRetry} data-testid="retry">
                Retry
              </button>
            )
          ) : (
            <span class="muted">Trying again will not help until the cause is fixed.</span>
          )}
        </div>
      )}
      {turn.status === 'cancelled' && <div class="notice">Stopped.</div>}
    </div>
  );
}

export function MessageList({ view, onRetry }: { view: ChatView; onRetry?: () => void }) {
  const running = view.turn?.state === 'running';
  const lastIndex = view.messages.length - 1;
  return (
    <div class="messages">
      {view.messages.map((message, index) => (
        <Message message={message} streaming={running && index === lastIndex} key={message.id} />
      ))}
      {view.turn && <TurnEnding turn={view.turn} {...(onRetry ? { onRetry } : {})} />}
    </div>
  );
}
