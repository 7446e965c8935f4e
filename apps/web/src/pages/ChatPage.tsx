/**
 * One chat: its header (title, mode badge, inspector, delete), the options of
 * its next turn (model, max iterations, agent mode with its directory), the
 * messages with the live turn, and the composer (Enter sends, Shift+Enter is a
 * new line; Stop while a turn runs).
 */
import type { Chat, ModelEntry, ModelsResponse } from '@mango/shared';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { buildSystemPrompt } from '../../../api/src/services/chat/system-prompt';
import { CapabilitiesPanel } from '../components/CapabilitiesPanel';
import { MessageList } from '../components/MessageList';
import { ApiError, api, messageOf } from '../lib/api';
import { ChatSession, type SessionSnapshot } from '../lib/chat-session';
import { navigate } from '../lib/router';

const DEFAULT_MAX_ITERATIONS = 25;

function useModels() {
  const [models, setModels] = useState<ModelEntry[]>([]);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    api<ModelsResponse>('/api/models')
      .then((answer) => {
        setModels(answer.models.filter((model) => model.kind === 'chat'));
        const failed = answer.providers.filter((provider) => provider.status === 'failed');
        if (failed.length > 0)
          setProblem(
            failed
              .map(
                (provider) => `${provider.provider}: ${provider.error?.message ?? 'unreachable'}`,
              )
              .join('; '),
          );
      })
      .catch((error) => setProblem(messageOf(error)));
  }, []);
  return { models, problem };
}

function ChatOptions({
  chat,
  onChange,
  maxIterations,
  setMaxIterations,
}: {
  chat: Chat;
  onChange: (chat: Chat) => void;
  maxIterations: string;
  setMaxIterations: (value: string) => void;
}) {
  const { models, problem: modelsProblem } = useModels();
  const [directory, setDirectory] = useState(chat.workingDirectory ?? '');
  const [problem, setProblem] = useState<{ field?: string; message: string }>();
  useEffect(() => setDirectory(chat.workingDirectory ?? ''), [chat.workingDirectory]);
  const save = async (change: Partial<Chat>) => {
    setProblem(undefined);
    try {
      onChange(
        await api<Chat>(`/api/chats/${encodeURIComponent(chat.id)}`, {
          method: 'PATCH',
          body: change,
        }),
      );
    } catch (error) {
      const field =
        error instanceof ApiError
          ? ((error.body.details as { field?: string } | undefined)?.field ?? undefined)
          : undefined;
      setProblem({ ...(field ? { field } : {}), message: messageOf(error) });
    }
  };
  const told = buildSystemPrompt({
    mode: chat.mode,
    workingDirectory: chat.workingDirectory,
    restrictToWorkingDirectory: chat.restrictToWorkingDirectory,
  });
  const known = models.some((model) => model.id === chat.model);
  return (
    <section class="chat-options" aria-label="Turn options">
      <label>
        Model
        <select
          data-testid="model-picker"
          value={chat.model ?? ''}
          onChange={(event) => void save({ model: event.currentTarget.value || null })}
        >
          <option value="">Choose a model…</option>
          {chat.model && !known && <option value={chat.model}>{chat.model}</option>}
          {models.map((model) => (
            <option value={model.id} key={model.id}>
              {model.displayName ? `${model.displayName} (${model.id})` : model.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        Max iterations
        <input
          type="number"
          min={1}
          max={1000}
          step={1}
          value={maxIterations}
          placeholder={String(DEFAULT_MAX_ITERATIONS)}
          data-testid="max-iterations"
          onInput={(event) => setMaxIterations(event.currentTarget.value)}
        />
      </label>
      <label class="switch">
        <input
          type="checkbox"
          checked={chat.mode === 'agent'}
          data-testid="agent-mode"
          onChange={(event) => void save({ mode: event.currentTarget.checked ? 'agent' : 'chat' })}
        />
        Agent mode
      </label>
      {chat.mode === 'agent' && (
        <>
          <label class="grow">
            Working directory
            <input
              type="text"
              value={directory}
              placeholder="/path/on/the/server or ~/project"
              data-testid="working-directory"
              aria-invalid={problem?.field === 'workingDirectory'}
              onInput={(event) => setDirectory(event.currentTarget.value)}
              onChange={() =>
                void save({ workingDirectory: directory.trim() === '' ? null : directory.trim() })
              }
            />
          </label>
          <label class="switch">
            <input
              type="checkbox"
              checked={chat.restrictToWorkingDirectory}
              data-testid="restrict-directory"
              onChange={(event) =>
                void save({ restrictToWorkingDirectory: event.currentTarget.checked })
              }
            />
            Restrict tools to it
          </label>
        </>
      )}
      {problem && (
        <p class="field-error" role="alert" data-testid="options-error">
          {problem.message}
        </p>
      )}
      {modelsProblem && (
        <p class="muted small">Some providers could not list models: {modelsProblem}</p>
      )}
      {chat.mode === 'agent' && told && (
        <p class="muted small" data-testid="agent-prompt">
          The model is told: “{told}”
        </p>
      )}
    </section>
  );
}

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

/** Keeps the newest content in view unless the reader scrolled up. */
function useStickToBottom(dependency: unknown) {
  const ref = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onScroll = () => {
      const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
      stuck.current = distance < 48;
      setShowJump(!stuck.current);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  useEffect(() => {
    const element = ref.current;
    if (element && stuck.current) element.scrollTop = element.scrollHeight;
  }, [dependency]);
  const jump = () => {
    const element = ref.current;
    if (!element) return;
    stuck.current = true;
    element.scrollTop = element.scrollHeight;
    setShowJump(false);
  };
  return { ref, showJump, jump };
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
  const { ref, showJump, jump } = useStickToBottom(snapshot.view);

  useEffect(() => {
    setChat(undefined);
    setLoadProblem(undefined);
    api<Chat>(`/api/chats/${encodeURIComponent(chatId)}`)
      .then(setChat)
      .catch((error) => setLoadProblem(messageOf(error)));
  }, [chatId]);

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
    <div
      class={`chat-page${inspector ? ' with-panel' : ''}`}
      data-testid="chat"
      data-state={snapshot.state}
    >
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
