/**
 * The form of one MCP server (Settings → MCP): stdio fields (command,
 * arguments, working directory, environment) or http ones (URL, headers),
 * and the body a create or an update sends. Secret values come back masked;
 * a mask left as it is keeps the stored value.
 */
import type { McpServer } from '@mango/shared';
import { useState } from 'preact/hooks';
import { messageOf } from '../lib/api';

type Pairs = { name: string; value: string }[];

export interface Draft {
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

export const EMPTY_DRAFT: Draft = {
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

export function draftOf(server: McpServer): Draft {
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
export function bodyOf(draft: Draft, creating: boolean): Record<string, unknown> {
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

export function ServerForm({
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
