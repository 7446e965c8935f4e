/** The shell: who is signed in, the navigation, the chat list, and the page the URL names. */
import type { Chat, ChatListResponse, ModelsResponse } from '@mango/shared';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, messageOf, SIGNED_OUT_EVENT } from './lib/api';
import { navigate, onLinkClick, usePath } from './lib/router';
import { readSession, type SessionUser, signOut } from './lib/session';
import { AccountPage } from './pages/AccountPage';
import { ChatPage } from './pages/ChatPage';
import { McpSettingsPage } from './pages/McpSettingsPage';
import { SignInPage } from './pages/SignInPage';
import { ToolSettingsPage } from './pages/ToolSettingsPage';

function ChatList({
  chats,
  activeId,
  onCreate,
  onMore,
}: {
  chats: Chat[];
  activeId?: string;
  onCreate: () => void;
  /** Loads the next page of chats; absent when every chat is shown. */
  onMore?: () => void;
}) {
  const [filter, setFilter] = useState('');
  const shown = chats.filter((chat) => chat.title.toLowerCase().includes(filter.toLowerCase()));
  return (
    <nav class="chat-list" aria-label="Chats">
      <button type="button" class="new-chat" onClick={onCreate} data-testid="new-chat">
        + New chat
      </button>
      <input
        type="search"
        placeholder="Search chats"
        aria-label="Search chats"
        value={filter}
        onInput={(event) => setFilter(event.currentTarget.value)}
      />
      <ul>
        {shown.map((chat) => (
          <li key={chat.id}>
            <a
              href={`/chats/${chat.id}`}
              aria-current={chat.id === activeId ? 'page' : undefined}
              data-testid="chat-link"
            >
              <span class="chat-link-title">{chat.title}</span>
              {chat.mode === 'agent' && <span class="badge agent">agent</span>}
            </a>
          </li>
        ))}
        {chats.length === 0 && <li class="muted small">No chats yet.</li>}
      </ul>
      {onMore && (
        <button type="button" class="link" onClick={onMore} data-testid="more-chats">
          Older chats…
        </button>
      )}
    </nav>
  );
}

function Shell({ user, onSignedOut }: { user: SessionUser; onSignedOut: () => void }) {
  const path = usePath();
  const [chats, setChats] = useState<Chat[]>([]);
  // The list comes a page at a time (GET /api/chats?cursor=…); the next page's cursor, if any.
  const [nextCursor, setNextCursor] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [menuOpen, setMenuOpen] = useState(false);
  const loadChats = useCallback(() => {
    api<ChatListResponse>('/api/chats')
      .then((answer) => {
        setChats(answer.chats);
        setNextCursor(answer.nextCursor);
      })
      .catch((error) => setProblem(messageOf(error)));
  }, []);
  const loadMore = () => {
    if (!nextCursor) return;
    api<ChatListResponse>(`/api/chats?cursor=${encodeURIComponent(nextCursor)}`)
      .then((answer) => {
        // A chat that moved up since the first page is not shown twice.
        setChats((shown) => [
          ...shown,
          ...answer.chats.filter((chat) => !shown.some((old) => old.id === chat.id)),
        ]);
        setNextCursor(answer.nextCursor);
      })
      .catch((error) => setProblem(messageOf(error)));
  };
  useEffect(loadChats, []);
  useEffect(() => setMenuOpen(false), [path]);
  const chatId = path.match(/^\/chats\/([^/]+)$/)?.[1];
  const create = async () => {
    setProblem(undefined);
    try {
      let model = chats.find((chat) => chat.model)?.model ?? undefined;
      if (!model) {
        const offered = await api<ModelsResponse>('/api/models');
        model = offered.models.find((entry) => entry.kind === 'chat')?.id;
      }
      const chat = await api<Chat>('/api/chats', { body: model ? { model } : {} });
      setChats([chat, ...chats]);
      navigate(`/chats/${chat.id}`);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const page = (() => {
    if (chatId)
      return (
        <ChatPage key={chatId} chatId={decodeURIComponent(chatId)} onChatsChanged={loadChats} />
      );
    if (path === '/settings/tools' || path === '/settings') return <ToolSettingsPage />;
    if (path === '/settings/mcp') return <McpSettingsPage user={user} />;
    if (path === '/account')
      return (
        <AccountPage
          user={user}
          onSignOut={() => {
            void signOut().finally(onSignedOut);
          }}
        />
      );
    return (
      <main class="page welcome">
        <h2>Welcome, {user.name || user.email}</h2>
        <p class="muted">Pick a chat on the left, or start a new one.</p>
        <button type="button" onClick={() => void create()}>
          + New chat
        </button>
      </main>
    );
  })();
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: link clicks bubble here to stay in the page.
    // biome-ignore lint/a11y/useKeyWithClickEvents: links handle the keyboard themselves.
    <div class={`shell${menuOpen ? ' menu-open' : ''}`} onClick={onLinkClick}>
      <header class="topbar">
        <button
          type="button"
          class="ghost menu-button"
          aria-label="Chats"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          ☰
        </button>
        <a href="/" class="brand">
          MangoStudio
        </a>
        <nav class="top-nav" aria-label="Main">
          <a
            href="/settings/tools"
            aria-current={path.startsWith('/settings') ? 'page' : undefined}
          >
            Settings
          </a>
          <a href="/api/docs" target="_blank" rel="noopener">
            API docs
          </a>
          <a
            href="/account"
            aria-current={path === '/account' ? 'page' : undefined}
            data-testid="account-link"
            title={user.email}
          >
            <span class="wide-only">{user.email}</span>
            <span class="narrow-only">Account</span>
          </a>
        </nav>
      </header>
      <div class="body">
        <ChatList
          chats={chats}
          {...(nextCursor ? { onMore: loadMore } : {})}
          {...(chatId ? { activeId: chatId } : {})}
          onCreate={() => void create()}
        />
        <div class="content">
          {problem && (
            <p class="notice error" role="alert">
              {problem}
            </p>
          )}
          {page}
        </div>
      </div>
    </div>
  );
}

export function App() {
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);
  const [problem, setProblem] = useState<string>();
  const load = useCallback(() => {
    readSession()
      .then((found) => {
        setProblem(undefined);
        setUser(found);
      })
      .catch((error) => setProblem(messageOf(error)));
  }, []);
  useEffect(load, []);
  useEffect(() => {
    const signedOut = () => setUser(null);
    addEventListener(SIGNED_OUT_EVENT, signedOut);
    return () => removeEventListener(SIGNED_OUT_EVENT, signedOut);
  }, []);
  if (problem)
    return (
      <main class="auth-page">
        <p role="alert">{problem}</p>
        <button type="button" onClick={load}>
          Try again
        </button>
      </main>
    );
  if (user === undefined) return <main class="auth-page muted">Loading…</main>;
  if (user === null) return <SignInPage onSignedIn={load} />;
  return (
    <Shell
      user={user}
      onSignedOut={() => {
        setUser(null);
        navigate('/');
      }}
    />
  );
}
