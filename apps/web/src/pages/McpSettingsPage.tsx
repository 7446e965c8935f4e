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
import { bodyOf, draftOf, EMPTY_DRAFT, ServerForm } from '../components/McpServerForm';
import { api, messageOf } from '../lib/api';
import type { SessionUser } from '../lib/session';

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
