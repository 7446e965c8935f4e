/**
 * The execution layer: the time budget and cancel race every tool call runs
 * in (`runWithToolBudget`, used by every tool source), and `executeTool`, which
 * looks a registered tool up, checks it is enabled for the user, resolves its
 * settings safely and runs it in that race.
 * The executor's signal fires on the budget (reason `ToolTimeoutError`) or on the
 * parent's cancel (reason `ToolAbortedError`); the two are never confused.
 */
import {
  asToolError,
  ToolAbortedError,
  ToolDisabledError,
  ToolError,
  ToolTimeoutError,
  UnknownToolError,
} from './errors';
import { defaultToolRegistry, type ToolRegistry } from './registry';
import {
  clampIntegerSetting,
  clampNumberSetting,
  getSafeEffectiveToolSettings,
} from './settings-policy';
import type { RegisteredTool, StoredToolSettings, ToolCallContext, ToolContext } from './types';

export const DEFAULT_TOOL_TIMEOUT_SECONDS = 30;
/** How long a tool that settles on abort (`RegisteredTool.settlesOnAbort`) may take to answer after it. */
export const SETTLE_GRACE_MS = 2_000;

export interface ExecuteToolOptions {
  registry?: ToolRegistry;
}

/** The tool's time budget: its `timeoutSeconds` setting within the descriptor's bounds, else 30 s. */
export function getToolTimeoutMs(
  tool: RegisteredTool,
  parameters: Record<string, unknown>,
): number {
  const descriptor = tool.settings.parameterDescriptors.find(
    (item) => item.name === 'timeoutSeconds',
  );
  if (!descriptor) return DEFAULT_TOOL_TIMEOUT_SECONDS * 1000;
  const bounds = {
    min: descriptor.min ?? 1,
    max: descriptor.max,
    fallback:
      typeof descriptor.defaultValue === 'number'
        ? descriptor.defaultValue
        : DEFAULT_TOOL_TIMEOUT_SECONDS,
  };
  const seconds = descriptor.integer
    ? clampIntegerSetting(parameters.timeoutSeconds, bounds)
    : clampNumberSetting(parameters.timeoutSeconds, bounds);
  return seconds * 1000;
}

function abortedBy(signal: AbortSignal | undefined, toolName: string): ToolAbortedError {
  const reason = signal?.reason;
  if (reason instanceof ToolAbortedError) return reason;
  return new ToolAbortedError(`The call to "${toolName}" was cancelled before it finished.`, {
    cause: reason,
  });
}

/**
 * Runs one call of `tool` against its time budget and the parent's cancel:
 * the run's signal fires on the budget (reason `ToolTimeoutError`) or on the
 * parent's cancel (reason `ToolAbortedError`), and the promise rejects with
 * that reason at once, whatever the run does with the signal. A result or
 * failure that arrives later is dropped; anything thrown that is not a
 * `ToolError` becomes `execution_failed`. Every tool source runs its calls
 * through this, so the budget and the cancel mean the same for all of them.
 * A tool that settles on abort (generate_image) is the exception: it answers
 * promptly with its partial result, which is waited for (`SETTLE_GRACE_MS`).
 */
export async function runWithToolBudget(
  tool: RegisteredTool,
  parameters: Record<string, unknown>,
  context: ToolCallContext,
  run: (context: ToolContext) => Promise<unknown>,
): Promise<unknown> {
  const name = tool.definition.name;
  const parent = context.signal;
  if (parent?.aborted) throw abortedBy(parent, name);

  const timeoutMs = getToolTimeoutMs(tool, parameters);
  const controller = new AbortController();
  let rejectRace: (error: ToolError) => void = () => {};
  const race = new Promise<never>((_, reject) => {
    rejectRace = reject;
  });
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (error: ToolError) => {
    if (controller.signal.aborted) return;
    controller.abort(error);
    // A tool that settles on abort answers with what it has; it gets a moment to do so.
    if (tool.settlesOnAbort) graceTimer = setTimeout(() => rejectRace(error), SETTLE_GRACE_MS);
    else rejectRace(error);
  };
  const timer = setTimeout(
    () =>
      stop(
        new ToolTimeoutError(
          `Tool "${name}" did not finish within its ${timeoutMs / 1000} s budget and was stopped. Try a smaller task, or ask the user to raise its timeoutSeconds setting.`,
        ),
      ),
    timeoutMs,
  );
  const onParentAbort = () => stop(abortedBy(parent, name));
  parent?.addEventListener('abort', onParentAbort, { once: true });

  try {
    const { signal: _parentSignal, ...rest } = context;
    const running = Promise.resolve().then(() =>
      run({ ...rest, parameters, signal: controller.signal }),
    );
    // A result or failure that arrives after the budget or the cancel is dropped.
    running.catch(() => {});
    return await Promise.race([running, race]);
  } catch (error) {
    if (controller.signal.aborted && controller.signal.reason instanceof ToolError)
      throw controller.signal.reason;
    throw asToolError(error, name);
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}

/**
 * Runs one call of a registered tool (docs/tool-system.md#core-types's entry point). Resolves to the
 * tool's result; rejects with a `ToolError`: `unknown_tool`, `tool_disabled`,
 * `timeout`, `aborted`, or whatever the tool raised (anything that is not a
 * `ToolError` becomes `execution_failed`).
 */
export async function executeTool(
  name: string,
  args: unknown,
  context: ToolCallContext,
  savedSettings?: StoredToolSettings | null,
  options: ExecuteToolOptions = {},
): Promise<unknown> {
  const registry = options.registry ?? defaultToolRegistry;
  const tool = registry.get(name);
  if (!tool) {
    const available = registry.list().map((item) => item.definition.name);
    throw new UnknownToolError(
      `There is no tool named "${name}". Available tools: ${available.length > 0 ? available.join(', ') : 'none'}.`,
    );
  }
  const settings = getSafeEffectiveToolSettings(tool, savedSettings);
  if (!settings.enabled) throw toolDisabledError(name);
  return runWithToolBudget(tool, settings.parameters, context, (toolContext) =>
    tool.execute(args, toolContext),
  );
}

export function toolDisabledError(name: string): ToolDisabledError {
  return new ToolDisabledError(
    `Tool "${name}" is disabled for this user. Answer without it, or ask the user to enable it in Settings → Tools.`,
  );
}
