/**
 * One chat: its header (title, mode badge, inspector, delete), the options of
 * its next turn (model, max iterations, agent mode with its directory), the
 * messages with the live turn, and the composer (Enter sends, Shift+Enter is a
 * new line; Stop while a turn runs).
 */
import type { Chat } from '@mango/shared';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { CapabilitiesPanel } from '../components/CapabilitiesPanel';
import { ChatOptions } from '../components/ChatOptions';
import { MessageList } from '../components/MessageList';
import { useMarkdownRenderer } from '../components/use-markdown';
import { api, messageOf } from '../lib/api';
import { ChatSession, type SessionSnapshot } from '../lib/chat-session';
import { navigate } from '../lib/router';
import { useStickToBottom } from '../lib/stick-to-bottom';

function useSession(chatId: string, onTurnEnded: () => void) {
  const session = useMemo(() => new ChatSession(chatId, onTurnEnded), [chatId]);
  const [snapshot, setSnapshot] = useState<SessionSnapshot>(session.current);
  useEffect(() => {
    const unsubscribe = session.subscribe(setSnapshot);
    void session.open();
    const onVisible = () => {
      if (document.visibilityState === 'visible') void session.refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      unsubscribe();
      session.close();
    };
  }, [session]);
  return { session, snapshot };
}

export function ChatPage({
  chatId,
  onChatsChanged,
}: {
  chatId: string;
  onChatsChanged: () => void;
}) {
  const [chat, setChat] = useState<Chat>();
  const [loadProblem, setLoadProblem] = useState<string>();
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState('');
  const [draft, setDraft] = useState('');
  const [maxIterations, setMaxIterations] = useState('');
  const [inspector, setInspector] = useState(false);
  const { session, snapshot } = useSession(chatId, () => {
    onChatsChanged();
    void api<Chat>(`/api/chats/${encodeURIComponent(chatId)}`).then(setChat, () => {});
  });
  const { ref, showJump, jump } = useStickToBottom();

  useEffect(() => {
    setChat(undefined);
    setLoadProblem(undefined);
    api<Chat>(`/api/chats/${encodeURIComponent(chatId)}`)
      .then(setChat)
      .catch((error) => setLoadProblem(messageOf(error)));
  }, [chatId]);

  // Loaded when there is something to draw, or once the chat is shown (for the reply to come).
  const renderer = useMarkdownRenderer(
    snapshot.state === 'idle' || snapshot.view.messages.length > 0,
  );
  // Once the chat is shown, while the reader types: the markdown code gets ready for the reply.
  useEffect(() => {
    if (snapshot.state === 'idle') renderer?.warmUpMarkdown();
  }, [snapshot.state, renderer]);
  // A chat with messages is ready once they can be drawn (the renderer's chunk is in).
  const state =
    snapshot.state === 'idle' && !renderer && snapshot.view.messages.length > 0
      ? 'loading'
      : snapshot.state;

  const running = snapshot.state !== 'idle' && snapshot.state !== 'loading';
  useEffect(() => {
    if (!running) return;
    // Leaving does not stop the turn (the server owns it), but say so before a tab is closed.
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [running]);

  if (loadProblem)
    return (
      <div class="chat-page empty">
        <p role="alert">{loadProblem}</p>
      </div>
    );
  if (!chat) return <div class="chat-page empty">Loading…</div>;

  const send = (content: string) => {
    const limit = Number(maxIterations);
    void session.send({
      content,
      ...(maxIterations.trim() !== '' && Number.isInteger(limit) ? { maxIterations: limit } : {}),
    });
  };
  const submit = (event?: Event) => {
    event?.preventDefault();
    const content = draft.trim();
    if (!content || running || snapshot.state === 'loading') return;
    setDraft('');
    send(content);
  };
  const rename = async () => {
    setRenaming(false);
    const next = title.trim();
    if (!next || next === chat.title) return;
    try {
      setChat(
        await api<Chat>(`/api/chats/${encodeURIComponent(chat.id)}`, {
          method: 'PATCH',
          body: { title: next },
        }),
      );
      onChatsChanged();
    } catch (error) {
      setLoadProblem(messageOf(error));
    }
  };
  const remove = async () => {
    if (!confirm(`Delete “${chat.title}” and its messages?`)) return;
    await api(`/api/chats/${encodeURIComponent(chat.id)}`, { method: 'DELETE' });
    onChatsChanged();
    navigate('/');
  };
  const retryText = lastUserText(snapshot);
  const retry = retryText ? () => send(retryText) : undefined;

  return (
    <div class={`chat-page${inspector ? ' with-panel' : ''}`} data-testid="chat" data-state={state}>
      <div class="chat-main">
        <header class="chat-header">
          {renaming ? (
            <input
              class="title-input"
              aria-label="Chat title"
              value={title}
              // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename.
              autoFocus
              onInput={(event) => setTitle(event.currentTarget.value)}
              onBlur={() => void rename()}
              onKeyDown={(event) => {
                if (event.key === 'Enter') void rename();
                if (event.key === 'Escape') setRenaming(false);
              }}
            />
          ) : (
            <h2 data-testid="chat-title">{chat.title}</h2>
          )}
          {chat.mode === 'agent' && (
            <span class="badge agent" title={chat.workingDirectory ?? 'No directory'}>
              agent{chat.workingDirectory ? ` · ${chat.workingDirectory}` : ''}
            </span>
          )}
          <div class="spacer" />
          <button
            type="button"
            class="ghost"
            onClick={() => {
              setTitle(chat.title);
              setRenaming(true);
            }}
          >
            Rename
          </button>
          <button
            type="button"
            class="ghost"
            aria-pressed={inspector}
            data-testid="open-inspector"
            onClick={() => setInspector(!inspector)}
          >
            Inspector
          </button>
          <button type="button" class="ghost danger" onClick={() => void remove()}>
            Delete
          </button>
        </header>
        <ChatOptions
          chat={chat}
          onChange={setChat}
          maxIterations={maxIterations}
          setMaxIterations={setMaxIterations}
        />
        <div class="scroller" ref={ref}>
          {snapshot.view.messages.length === 0 && snapshot.state === 'idle' && (
            <p class="muted empty-chat">
              {chat.model ? 'Say something to start.' : 'Choose a model above, then say something.'}
            </p>
          )}
          <MessageList view={snapshot.view} {...(retry ? { onRetry: retry } : {})} />
        </div>
        {showJump && (
          <button type="button" class="jump" onClick={jump}>
            Jump to latest ↓
          </button>
        )}
        {snapshot.problem && (
          <p class="notice error composer-problem" role="alert" data-testid="chat-problem">
            {snapshot.problem}
          </p>
        )}
        <form class="composer" onSubmit={submit}>
          <textarea
            aria-label="Message"
            data-testid="composer"
            placeholder="Message (Enter to send, Shift+Enter for a new line)"
            rows={2}
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) submit(event);
            }}
          />
          {running ? (
            <button
              type="button"
              class="stop"
              data-testid="stop"
              onClick={() => void session.stop()}
            >
              Stop
            </button>
          ) : (
            <button
              type="submit"
              data-testid="send"
              disabled={draft.trim() === '' || snapshot.state === 'loading'}
            >
              Send
            </button>
          )}
        </form>
      </div>
      {inspector && <CapabilitiesPanel chat={chat} onClose={() => setInspector(false)} />}
    </div>
  );
}

function lastUserText(snapshot: SessionSnapshot): string | undefined {
  const user = [...snapshot.view.messages].reverse().find((message) => message.role === 'user');
  const part = user?.parts.find((candidate) => candidate.type === 'text');
  return part?.type === 'text' ? part.text : undefined;
}
