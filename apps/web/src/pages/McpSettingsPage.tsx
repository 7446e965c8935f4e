/**
 * Settings → MCP: the user's MCP servers with their state, tool count and last
 * error (with the tail of its stderr); adding a stdio server (admins) or an
 * http one, editing, testing, switching on and off and deleting; and pasting
 * the `mcpServers` JSON other clients use. Secrets are write-only: the server
 * answers them masked, and a masked value sent back keeps the stored one.
 */
import type {
  ImportMcpServersResponse,
  McpServer,
  McpServerListResponse,
  McpServerTestResult,
} from '@mango/shared';
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../lib/api';
import type { SessionUser } from '../lib/session';

type Pairs = { name: string; value: string }[];

interface Draft {
  name: string;
  type: 'stdio' | 'http';
  command: string;
  args: string;
  cwd: string;
  url: string;
  env: Pairs;
  headers: Pairs;
  callTimeoutSeconds: string;
  shared: boolean;
}

const EMPTY_DRAFT: Draft = {
  name: '',
  type: 'http',
  command: '',
  args: '',
  cwd: '',
  url: '',
  env: [],
  headers: [],
  callTimeoutSeconds: '',
  shared: false,
};

function draftOf(server: McpServer): Draft {
  const pairs = (values: Record<string, string>) =>
    Object.entries(values).map(([name, value]) => ({ name, value }));
  return {
    name: server.name,
    type: server.type,
    command: server.command ?? '',
    args: server.args.join('\n'),
    cwd: server.cwd ?? '',
    url: server.url ?? '',
    env: pairs(server.env),
    headers: pairs(server.headers),
    callTimeoutSeconds: server.callTimeoutSeconds === null ? '' : String(server.callTimeoutSeconds),
    shared: server.shared,
  };
}

const toRecord = (pairs: Pairs) =>
  Object.fromEntries(
    pairs.filter((pair) => pair.name.trim()).map((pair) => [pair.name.trim(), pair.value]),
  );

/** The body of a create (every field) or an update (no slug, no type). */
function bodyOf(draft: Draft, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { name: draft.name.trim() };
  if (creating) body.type = draft.type;
  if (draft.type === 'stdio') {
    body.command = draft.command.trim();
    body.args = draft.args.split('\n').filter((line) => line.trim() !== '');
    body.env = toRecord(draft.env);
    if (draft.cwd.trim()) body.cwd = draft.cwd.trim();
    else if (!creating) body.cwd = null;
  } else {
    body.url = draft.url.trim();
    body.headers = toRecord(draft.headers);
  }
  if (draft.callTimeoutSeconds.trim()) body.callTimeoutSeconds = Number(draft.callTimeoutSeconds);
  else if (!creating) body.callTimeoutSeconds = null;
  if (draft.shared || !creating) body.shared = draft.shared;
  return body;
}

function PairsField({
  label,
  pairs,
  onChange,
}: {
  label: string;
  pairs: Pairs;
  onChange: (pairs: Pairs) => void;
}) {
  const set = (index: number, change: Partial<Pairs[number]>) =>
    onChange(pairs.map((pair, at) => (at === index ? { ...pair, ...change } : pair)));
  return (
    <fieldset class="list-field">
      <legend>{label}</legend>
      {pairs.map((pair, index) => (
        <div class="list-row" key={index}>
          <input
            value={pair.name}
            placeholder="NAME"
            aria-label={`${label} name ${index + 1}`}
            onInput={(event) => set(index, { name: event.currentTarget.value })}
          />
          <input
            value={pair.value}
            placeholder="value"
            aria-label={`${label} value ${index + 1}`}
            onInput={(event) => set(index, { value: event.currentTarget.value })}
          />
          <button
            type="button"
            class="ghost"
            aria-label={`Remove ${label} ${index + 1}`}
            onClick={() => onChange(pairs.filter((_, at) => at !== index))}
          >
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        class="link"
        onClick={() => onChange([...pairs, { name: '', value: '' }])}
      >
        + Add
      </button>
      <p class="muted small">
        Values are write-only: they come back masked (••••••); leave a mask as it is to keep the
        stored value.
      </p>
    </fieldset>
  );
}

function ServerForm({
  initial,
  creating,
  isAdmin,
  onSave,
  onCancel,
}: {
  initial: Draft;
  creating: boolean;
  isAdmin: boolean;
  onSave: (draft: Draft) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [problem, setProblem] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setProblem(undefined);
    try {
      await onSave(draft);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form class="mcp-form" onSubmit={(event) => void submit(event)} data-testid="mcp-form">
      <label>
        Name
        <input
          value={draft.name}
          required
          onInput={(event) => set({ name: event.currentTarget.value })}
        />
      </label>
      {creating && (
        <label>
          Type
          <select
            aria-label="Type"
            value={draft.type}
            onChange={(event) => set({ type: event.currentTarget.value as Draft['type'] })}
          >
            <option value="http">http — a remote server (Streamable HTTP, or SSE)</option>
            <option value="stdio">
              stdio — a command this machine runs{isAdmin ? '' : ' (admins, or allowed commands)'}
            </option>
          </select>
        </label>
      )}
      {draft.type === 'stdio' ? (
        <>
          <label>
            Command
            <input
              aria-label="Command"
              value={draft.command}
              placeholder="npx"
              onInput={(event) => set({ command: event.currentTarget.value })}
            />
          </label>
          <label>
            Arguments, one per line
            <textarea
              aria-label="Arguments, one per line"
              class="mono"
              rows={3}
              value={draft.args}
              onInput={(event) => set({ args: event.currentTarget.value })}
            />
          </label>
          <label>
            Working directory (absolute, optional)
            <input value={draft.cwd} onInput={(event) => set({ cwd: event.currentTarget.value })} />
          </label>
          <PairsField label="Environment" pairs={draft.env} onChange={(env) => set({ env })} />
        </>
      ) : (
        <>
          <label>
            URL
            <input
              aria-label="URL"
              value={draft.url}
              placeholder="https://mcp.example.com/mcp"
              onInput={(event) => set({ url: event.currentTarget.value })}
            />
          </label>
          <PairsField
            label="Headers"
            pairs={draft.headers}
            onChange={(headers) => set({ headers })}
          />
        </>
      )}
      <label>
        Call timeout in seconds (optional, 1–3600)
        <input
          type="number"
          min={1}
          max={3600}
          value={draft.callTimeoutSeconds}
          onInput={(event) => set({ callTimeoutSeconds: event.currentTarget.value })}
        />
      </label>
      {isAdmin && (
        <label class="inline">
          <input
            type="checkbox"
            checked={draft.shared}
            onChange={(event) => set({ shared: event.currentTarget.checked })}
          />
          Shared with every user (read-only to them)
        </label>
      )}
      {problem && (
        <p role="alert" class="notice error" data-testid="mcp-form-problem">
          {problem}
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={saving}>
          {creating ? 'Add server' : 'Save'}
        </button>
        <button type="button" class="ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function StatusBadge({ server }: { server: McpServer }) {
  return (
    <span class={`badge status-${server.status}`} data-testid="mcp-status">
      {server.status}
    </span>
  );
}

function ServerRow({
  server,
  isAdmin,
  onChanged,
  onDeleted,
}: {
  server: McpServer;
  isAdmin: boolean;
  onChanged: (server: McpServer) => void;
  onDeleted: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [test, setTest] = useState<McpServerTestResult>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  const refresh = async () => onChanged(await api<McpServer>(`/api/mcp/servers/${server.id}`));
  const error = test && !test.ok ? test.error : server.lastError;
  return (
    <li class="tool-row mcp-row" data-testid="mcp-server" data-slug={server.slug}>
      <div class="tool-row-head">
        <div class="grow">
          <h3>
            {server.name} <StatusBadge server={server} />
            {server.shared && <span class="badge">shared</span>}
          </h3>
          <p class="muted small">
            <code>
              {server.type === 'stdio' ? [server.command, ...server.args].join(' ') : server.url}
            </code>
            {' · '}
            {server.toolCount === null ? 'not listed yet' : `${server.toolCount} tools`}
            {' · tools are '}
            <code>mcp__{server.slug}__…</code>
          </p>
        </div>
        {server.editable && (
          <label class="switch">
            <input
              type="checkbox"
              checked={server.enabled}
              disabled={busy}
              aria-label={`${server.name} enabled`}
              onChange={(event) => {
                const enabled = event.currentTarget.checked;
                void act(async () =>
                  onChanged(
                    await api<McpServer>(`/api/mcp/servers/${server.id}`, {
                      method: 'PUT',
                      body: { enabled },
                    }),
                  ),
                );
              }}
            />
            {server.enabled ? 'On' : 'Off'}
          </label>
        )}
      </div>
      <div class="row">
        <button
          type="button"
          disabled={busy || !server.enabled}
          data-testid="mcp-test"
          onClick={() =>
            void act(async () => {
              setTest(
                await api<McpServerTestResult>(`/api/mcp/servers/${server.id}/test`, { body: {} }),
              );
              await refresh();
            })
          }
        >
          Test
        </button>
        {server.editable && (
          <>
            <button
              type="button"
              class="ghost"
              disabled={busy}
              onClick={() => setEditing(!editing)}
            >
              Edit
            </button>
            <button
              type="button"
              class="ghost danger"
              disabled={busy}
              onClick={() => {
                if (
                  !confirm(`Delete the MCP server “${server.name}”? Its connections close at once.`)
                )
                  return;
                void act(async () => {
                  await api(`/api/mcp/servers/${server.id}`, { method: 'DELETE' });
                  onDeleted();
                });
              }}
            >
              Delete
            </button>
          </>
        )}
        {!server.editable && <span class="muted small">Shared by an admin: read-only.</span>}
      </div>
      {test?.ok && (
        <p class="notice" data-testid="mcp-test-result">
          Connected to <strong>{test.serverName}</strong> {test.serverVersion}: {test.toolCount}{' '}
          tools in {Math.round(test.durationMs)} ms.
        </p>
      )}
      {error && (
        <div class="notice error" data-testid="mcp-last-error">
          <strong>
            <code>{error.code}</code>
          </strong>{' '}
          {error.message}
          {error.stderrTail && (
            <details>
              <summary>stderr</summary>
              <pre>{error.stderrTail}</pre>
            </details>
          )}
        </div>
      )}
      {problem && <p role="alert">{problem}</p>}
      {editing && (
        <ServerForm
          initial={draftOf(server)}
          creating={false}
          isAdmin={isAdmin}
          onCancel={() => setEditing(false)}
          onSave={async (draft) => {
            onChanged(
              await api<McpServer>(`/api/mcp/servers/${server.id}`, {
                method: 'PUT',
                body: bodyOf(draft, false),
              }),
            );
            setEditing(false);
          }}
        />
      )}
    </li>
  );
}

function ImportBox({ onImported }: { onImported: () => void }) {
  const [text, setText] = useState('');
  const [results, setResults] = useState<ImportMcpServersResponse['results']>();
  const [problem, setProblem] = useState<string>();
  const submit = async () => {
    setProblem(undefined);
    setResults(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      setProblem('That is not JSON. Paste the whole {"mcpServers": {…}} object.');
      return;
    }
    try {
      const answer = await api<ImportMcpServersResponse>('/api/mcp/servers/import', {
        body: parsed,
      });
      setResults(answer.results);
      onImported();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <details class="mcp-import">
      <summary>Import an mcpServers JSON (Claude Desktop, Cursor, VS Code)</summary>
      <textarea
        class="mono"
        rows={8}
        aria-label="mcpServers JSON"
        placeholder={
          '{\n  "mcpServers": {\n    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }\n  }\n}'
        }
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button type="button" onClick={() => void submit()} data-testid="mcp-import">
        Import
      </button>
      {problem && <p role="alert">{problem}</p>}
      {results && (
        <ul data-testid="mcp-import-results">
          {results.map((result) => (
            <li key={result.name}>
              <strong>{result.name}</strong>:{' '}
              {result.created ? 'added' : `refused — ${result.error.message}`}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}

export function McpSettingsPage({ user }: { user: SessionUser }) {
  const isAdmin = user.role === 'admin';
  const [servers, setServers] = useState<McpServer[]>();
  const [problem, setProblem] = useState<string>();
  const [adding, setAdding] = useState(false);
  const load = () => {
    api<McpServerListResponse>('/api/mcp/servers')
      .then((answer) => setServers(answer.servers))
      .catch((error) => setProblem(messageOf(error)));
  };
  useEffect(load, []);
  return (
    <main class="page settings-page">
      <nav class="settings-tabs" aria-label="Settings">
        <a href="/settings/tools">Tools</a>
        <a href="/settings/mcp" aria-current="page">
          MCP servers
        </a>
      </nav>
      <h2>MCP servers</h2>
      <p class="muted">
        An enabled server's tools are offered in your turns beside the built-ins. Nothing starts
        when you add one: it connects at the first turn that needs it, when a chat's capabilities
        panel opens, or when you test it. Switch a server off when it must not be started or
        reached.
        {isAdmin
          ? ' As an admin you may add stdio servers (commands this machine runs).'
          : ' Only admins may add stdio servers, unless the operator allowed the command.'}
      </p>
      {problem && <p role="alert">{problem}</p>}
      <div class="row">
        <button type="button" onClick={() => setAdding(!adding)} data-testid="mcp-add">
          + Add server
        </button>
      </div>
      {adding && (
        <ServerForm
          initial={EMPTY_DRAFT}
          creating
          isAdmin={isAdmin}
          onCancel={() => setAdding(false)}
          onSave={async (draft) => {
            const created = await api<McpServer>('/api/mcp/servers', { body: bodyOf(draft, true) });
            setServers([...(servers ?? []), created]);
            setAdding(false);
          }}
        />
      )}
      <ImportBox onImported={load} />
      {!servers && !problem && <p class="muted">Loading…</p>}
      {servers?.length === 0 && <p class="muted">No MCP servers yet.</p>}
      <ul class="tool-list">
        {servers?.map((server) => (
          <ServerRow
            key={server.id}
            server={server}
            isAdmin={isAdmin}
            onChanged={(next) =>
              setServers(servers.map((old) => (old.id === next.id ? next : old)))
            }
            onDeleted={() => setServers(servers.filter((old) => old.id !== server.id))}
          />
        ))}
      </ul>
    </main>
  );
}
