/** The signed-in account: who, sign out, and API keys (a new key is shown once). */
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../lib/api';
import { copyText } from '../lib/clipboard';
import type { SessionUser } from '../lib/session';

interface ApiKey {
  id: string;
  name: string | null;
  start?: string | null;
  prefix?: string | null;
  createdAt: string;
  lastRequest?: string | null;
}

function keysOf(answer: unknown): ApiKey[] {
  if (Array.isArray(answer)) return answer as ApiKey[];
  const listed = (answer as { apiKeys?: ApiKey[] } | null)?.apiKeys;
  return Array.isArray(listed) ? listed : [];
}

export function AccountPage({ user, onSignOut }: { user: SessionUser; onSignOut: () => void }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const load = () =>
    api<unknown>('/api/auth/api-key/list')
      .then((answer) => setKeys(keysOf(answer)))
      .catch((error) => setProblem(messageOf(error)));
  useEffect(() => void load(), []);
  const create = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    try {
      const answer = await api<{ key: string }>('/api/auth/api-key/create', {
        body: { name: name.trim() || 'API key' },
      });
      setCreated(answer.key);
      setName('');
      await load();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke “${key.name ?? key.id}”? Scripts using it stop working.`)) return;
    try {
      await api('/api/auth/api-key/delete', { body: { keyId: key.id } });
      await load();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <main class="page account-page">
      <section class="card">
        <h2>Account</h2>
        <p>
          Signed in as <strong data-testid="account-email">{user.email}</strong>
          {user.role === 'admin' && (
            <span class="badge" data-testid="admin-badge">
              administrator
            </span>
          )}
        </p>
        <button type="button" onClick={onSignOut} data-testid="sign-out">
          Sign out
        </button>
      </section>
      <section class="card">
        <h2>API keys</h2>
        <p class="muted small">
          For scripts: send a key as <code>Authorization: Bearer &lt;key&gt;</code>. See the{' '}
          <a href="/api/docs" target="_blank" rel="noopener">
            API reference
          </a>
          .
        </p>
        <form class="inline-form" onSubmit={(event) => void create(event)}>
          <label>
            Name
            <input
              value={name}
              placeholder="my script"
              data-testid="key-name"
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <button type="submit" data-testid="create-key">
            Create key
          </button>
        </form>
        {created && (
          <div class="notice" role="status" data-testid="new-key">
            <p>Your new key — copy it now, it is shown only this once:</p>
            <code class="secret">{created}</code>{' '}
            <button type="button" onClick={() => void copyText(created)}>
              Copy
            </button>{' '}
            <button type="button" class="ghost" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        )}
        {problem && (
          <p class="field-error" role="alert">
            {problem}
          </p>
        )}
        <table class="keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Starts with</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">
                  No keys yet.
                </td>
              </tr>
            )}
            {keys.map((key) => (
              <tr key={key.id} data-testid="key-row">
                <td>{key.name ?? '—'}</td>
                <td>
                  <code>{key.start ?? key.prefix ?? ''}…</code>
                </td>
                <td>{new Date(key.createdAt).toLocaleString()}</td>
                <td>
                  <button type="button" class="ghost danger" onClick={() => void revoke(key)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}
