/**
 * The options of a chat's next turn: the model (from GET /api/models), the
 * iteration limit, and agent mode with its working directory and restriction
 * — quoting what the model will be told, from the server's own prompt builder.
 */
import type { Chat, ModelEntry, ModelsResponse } from '@mango/shared';
import { useEffect, useState } from 'preact/hooks';
import { buildSystemPrompt } from '../../../api/src/services/chat/system-prompt';
import { ApiError, api, messageOf } from '../lib/api';

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

export function ChatOptions({
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
  // Agent mode needs a working directory (the server refuses it without one), so switching it
  // on shows the directory field first; the chat becomes an agent chat with the directory.
  const [agentOn, setAgentOn] = useState(chat.mode === 'agent');
  useEffect(() => setDirectory(chat.workingDirectory ?? ''), [chat.workingDirectory]);
  useEffect(() => setAgentOn(chat.mode === 'agent'), [chat.mode]);
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
          checked={agentOn}
          data-testid="agent-mode"
          onChange={(event) => {
            const on = event.currentTarget.checked;
            setAgentOn(on);
            setProblem(undefined);
            if (!on && chat.mode === 'agent') void save({ mode: 'chat' });
            if (on && directory.trim() !== '')
              void save({ mode: 'agent', workingDirectory: directory.trim() });
          }}
        />
        Agent mode
      </label>
      {agentOn && (
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
              onChange={() => {
                const value = directory.trim();
                if (chat.mode === 'agent')
                  void save({ workingDirectory: value === '' ? null : value });
                else if (value !== '') void save({ mode: 'agent', workingDirectory: value });
              }}
            />
          </label>
          <label class="switch">
            <input
              type="checkbox"
              checked={chat.restrictToWorkingDirectory}
              disabled={chat.mode !== 'agent'}
              data-testid="restrict-directory"
              onChange={(event) =>
                void save({ restrictToWorkingDirectory: event.currentTarget.checked })
              }
            />
            Restrict tools to it
          </label>
        </>
      )}
      {agentOn && chat.mode !== 'agent' && !problem && (
        <p class="muted small" data-testid="agent-needs-directory">
          Agent mode needs a working directory on the server: one an admin granted you (admins: any
          directory outside the server's data directory).
        </p>
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
