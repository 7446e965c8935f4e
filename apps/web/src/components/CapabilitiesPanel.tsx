/**
 * The capabilities inspector as a side panel: every tool the chat's next turn
 * would offer, with its source, state and reason; every MCP server with its
 * state; and the exact tool payload the chat's model would receive.
 */
import type { Chat, ChatCapabilities } from '@mango/shared';
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../lib/api';

export function CapabilitiesPanel({ chat, onClose }: { chat: Chat; onClose: () => void }) {
  const [capabilities, setCapabilities] = useState<ChatCapabilities>();
  const [problem, setProblem] = useState<string>();
  const [showWire, setShowWire] = useState(false);
  useEffect(() => {
    setProblem(undefined);
    const path = `/api/chats/${encodeURIComponent(chat.id)}/capabilities${chat.model ? '?include=wire' : ''}`;
    api<ChatCapabilities>(path)
      .then(setCapabilities)
      .catch((error) => setProblem(messageOf(error)));
  }, [chat.id, chat.model, chat.mode, chat.workingDirectory, chat.restrictToWorkingDirectory]);
  const enabled = capabilities?.tools.filter((tool) => tool.state === 'enabled').length ?? 0;
  return (
    <aside class="side-panel" aria-label="Capabilities inspector" data-testid="inspector">
      <header>
        <h3>Inspector</h3>
        <button type="button" class="ghost" onClick={onClose} aria-label="Close the inspector">
          ✕
        </button>
      </header>
      {problem && <p role="alert">{problem}</p>}
      {!capabilities && !problem && <p class="muted">Loading…</p>}
      {capabilities && (
        <>
          <p class="muted small">
            The next turn offers {enabled} of {capabilities.tools.length} tools
            {capabilities.model ? ` to ${capabilities.model}` : ''}.
          </p>
          <table class="capabilities">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Source</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {capabilities.tools.map((tool) => (
                <tr key={tool.name} data-testid="capability-tool" data-state={tool.state}>
                  <td>
                    <code>{tool.name}</code>
                    {tool.reason && <div class="muted small">{tool.reason}</div>}
                  </td>
                  <td>{tool.source === 'server' ? `MCP ${tool.server ?? ''}` : 'built-in'}</td>
                  <td>
                    <span class={`state ${tool.state}`}>{tool.state}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h4>MCP servers</h4>
          {capabilities.servers.length === 0 ? (
            <p class="muted small">No MCP servers are configured.</p>
          ) : (
            <ul class="servers">
              {capabilities.servers.map((server) => (
                <li key={server.id}>
                  <strong>{server.name}</strong>{' '}
                  <span class={`state ${server.state}`}>{server.state}</span>{' '}
                  <span class="muted small">{server.health}</span>
                  {server.reason && <div class="tool-error">{server.reason}</div>}
                </li>
              ))}
            </ul>
          )}
          {capabilities.wire ? (
            <>
              <button type="button" class="link" onClick={() => setShowWire(!showWire)}>
                {showWire ? 'Hide' : 'Show'} the payload sent to {capabilities.wire.model}
              </button>
              {showWire && (
                <pre class="json" data-testid="wire-payload">
                  {JSON.stringify(capabilities.wire.payload, null, 2)}
                </pre>
              )}
            </>
          ) : (
            <p class="muted small">Choose a model to see the payload its provider would receive.</p>
          )}
        </>
      )}
    </aside>
  );
}
