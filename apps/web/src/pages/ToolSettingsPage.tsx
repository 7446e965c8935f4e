/**
 * Settings → Tools: one row per tool with its switch, and a form drawn from
 * its parameter descriptors alone (lib/settings-form.ts). A refused value
 * (422 `invalid_tool_settings`) is shown at the field its `key` names.
 */
import type {
  ToolParameterDescriptor,
  ToolSettingsDescriptor,
  ToolSettingsListResponse,
} from '@mango/shared';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, messageOf } from '../lib/api';
import {
  changedParameters,
  type Draft,
  type DraftValue,
  draftOf,
  numberHint,
  type PathEntry,
  resetBody,
  switchState,
} from '../lib/settings-form';

interface FieldProblem {
  key: string;
  message: string;
}

function problemOf(error: unknown): FieldProblem {
  if (error instanceof ApiError && typeof error.body.key === 'string')
    return { key: error.body.key, message: error.message };
  return { key: '', message: messageOf(error) };
}

function StringList({
  value,
  onChange,
  id,
}: {
  value: string[];
  onChange: (value: string[]) => void;
  id: string;
}) {
  return (
    <div class="list-field" id={id}>
      {value.map((item, index) => (
        <div class="list-row" key={index}>
          <input
            value={item}
            aria-label={`Item ${index + 1}`}
            onInput={(event) =>
              onChange(value.map((old, at) => (at === index ? event.currentTarget.value : old)))
            }
          />
          <button
            type="button"
            class="ghost"
            aria-label={`Remove item ${index + 1}`}
            onClick={() => onChange(value.filter((_, at) => at !== index))}
          >
            ✕
          </button>
        </div>
      ))}
      <button type="button" class="link" onClick={() => onChange([...value, ''])}>
        + Add
      </button>
    </div>
  );
}

function PathList({
  value,
  onChange,
  id,
}: {
  value: PathEntry[];
  onChange: (value: PathEntry[]) => void;
  id: string;
}) {
  const set = (index: number, change: Partial<PathEntry>) =>
    onChange(value.map((entry, at) => (at === index ? { ...entry, ...change } : entry)));
  return (
    <div class="list-field" id={id}>
      {value.map((entry, index) => (
        <div class="list-row" key={index}>
          <input
            type="checkbox"
            checked={entry.enabled}
            aria-label={`Use path ${index + 1}`}
            onChange={(event) => set(index, { enabled: event.currentTarget.checked })}
          />
          <input
            value={entry.path}
            placeholder="/a/path or ~/a/path"
            aria-label={`Path ${index + 1}`}
            onInput={(event) => set(index, { path: event.currentTarget.value })}
          />
          <button
            type="button"
            class="ghost"
            aria-label={`Remove path ${index + 1}`}
            onClick={() => onChange(value.filter((_, at) => at !== index))}
          >
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        class="link"
        onClick={() => onChange([...value, { path: '', enabled: true }])}
      >
        + Add path
      </button>
    </div>
  );
}

function Field({
  tool,
  descriptor,
  value,
  onChange,
  problem,
}: {
  tool: string;
  descriptor: ToolParameterDescriptor;
  value: DraftValue;
  onChange: (value: DraftValue) => void;
  problem?: string;
}) {
  const id = `setting-${tool}-${descriptor.name}`;
  const hint = descriptor.type === 'number' ? numberHint(descriptor) : '';
  const control = (() => {
    switch (descriptor.type) {
      case 'number':
        return (
          <input
            id={id}
            type="number"
            value={value as string}
            {...(descriptor.min !== undefined ? { min: descriptor.min } : {})}
            {...(descriptor.max !== undefined ? { max: descriptor.max } : {})}
            step={descriptor.integer ? 1 : 'any'}
            aria-invalid={problem !== undefined}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        );
      case 'boolean':
        return (
          <input
            id={id}
            type="checkbox"
            checked={value as boolean}
            onChange={(event) => onChange(event.currentTarget.checked)}
          />
        );
      case 'select':
        return (
          <select
            id={id}
            value={value as string}
            onChange={(event) => onChange(event.currentTarget.value)}
          >
            {(descriptor.options ?? []).map((option) => (
              <option value={option.value} key={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        );
      case 'string':
        return (
          <input
            id={id}
            value={value as string}
            aria-invalid={problem !== undefined}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        );
      case 'string_list':
        return <StringList id={id} value={value as string[]} onChange={onChange} />;
      case 'path_list':
        return <PathList id={id} value={value as PathEntry[]} onChange={onChange} />;
    }
  })();
  return (
    <div
      class={`field type-${descriptor.type}`}
      data-testid="setting-field"
      data-name={descriptor.name}
    >
      <label for={id}>{descriptor.label}</label>
      {control}
      <p class="muted small">
        {descriptor.description}
        {hint && ` (${hint})`}
      </p>
      {problem && (
        <p class="field-error" role="alert" data-testid="field-error">
          {problem}
        </p>
      )}
    </div>
  );
}

function ToolRow({
  tool,
  onSaved,
}: {
  tool: ToolSettingsDescriptor;
  onSaved: (tool: ToolSettingsDescriptor) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(tool));
  const [problem, setProblem] = useState<FieldProblem>();
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(draftOf(tool)), [tool]);
  const put = async (body: object) => {
    setProblem(undefined);
    setSaved(false);
    try {
      const next = await api<ToolSettingsDescriptor>(
        `/api/settings/tools/${encodeURIComponent(tool.name)}`,
        { method: 'PUT', body },
      );
      onSaved(next);
      setSaved(true);
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const changed = changedParameters(tool, draft);
  const toggle = switchState(tool);
  const fieldNames = new Set(tool.parameterDescriptors.map((descriptor) => descriptor.name));
  return (
    <li class="tool-row card" data-testid="tool-row" data-tool={tool.name}>
      <div class="tool-row-head">
        <label class="switch" title={toggle.reason}>
          <input
            type="checkbox"
            checked={tool.enabled}
            disabled={toggle.disabled}
            data-testid="tool-enabled"
            onChange={(event) => void put({ enabled: event.currentTarget.checked })}
          />
          <span class="sr-only">Enabled</span>
        </label>
        <div class="grow">
          <h3>
            {tool.title} <code class="muted">{tool.name}</code>{' '}
            <span class="badge">{tool.source === 'server' ? 'MCP' : tool.category}</span>
          </h3>
          <p class="muted small">{tool.description}</p>
          {toggle.reason && <p class="muted small">{toggle.reason}</p>}
          {tool.unavailableReason && (
            <p class="notice small" data-testid="unavailable">
              Unavailable: {tool.unavailableReason}
            </p>
          )}
          {problem && (problem.key === 'enabled' || !fieldNames.has(problem.key)) && (
            <p class="field-error" role="alert" data-testid="tool-error">
              {problem.message}
            </p>
          )}
        </div>
      </div>
      {tool.parameterDescriptors.length > 0 && (
        <details class="tool-settings">
          <summary>Settings</summary>
          <form
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              void put({ parameters: changed });
            }}
          >
            {tool.parameterDescriptors.map((descriptor) => (
              <Field
                key={descriptor.name}
                tool={tool.name}
                descriptor={descriptor}
                value={draft[descriptor.name] as DraftValue}
                onChange={(value) => setDraft({ ...draft, [descriptor.name]: value })}
                {...(problem?.key === descriptor.name ? { problem: problem.message } : {})}
              />
            ))}
            <div class="form-actions">
              <button
                type="submit"
                disabled={Object.keys(changed).length === 0}
                data-testid="save-settings"
              >
                Save
              </button>
              <button type="button" class="ghost" onClick={() => void put(resetBody(tool))}>
                Reset to defaults
              </button>
              {saved && <span class="muted small">Saved.</span>}
            </div>
          </form>
        </details>
      )}
    </li>
  );
}

export function ToolSettingsPage() {
  const [tools, setTools] = useState<ToolSettingsDescriptor[]>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    api<ToolSettingsListResponse>('/api/settings/tools')
      .then((answer) => setTools(answer.tools))
      .catch((error) => setProblem(messageOf(error)));
  }, []);
  return (
    <main class="page settings-page">
      <nav class="settings-tabs" aria-label="Settings">
        <a href="/settings/tools" aria-current="page">
          Tools
        </a>
        <a href="/settings/mcp">MCP servers</a>
      </nav>
      <h2>Tools</h2>
      <p class="muted small">
        Your own switches and settings for every tool; a turn offers the model only the tools
        switched on here.
      </p>
      {problem && <p role="alert">{problem}</p>}
      {!tools && !problem && <p class="muted">Loading…</p>}
      <ul class="tool-list">
        {tools?.map((tool) => (
          <ToolRow
            key={tool.name}
            tool={tool}
            onSaved={(next) => setTools(tools.map((old) => (old.name === next.name ? next : old)))}
          />
        ))}
      </ul>
    </main>
  );
}
