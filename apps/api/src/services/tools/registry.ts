/**
 * The tool registry. Built-ins register themselves into the default registry when
 * their module is imported (`registerTool`); tests create fresh registries.
 * Registration checks what would otherwise fail much later, in front of a model:
 * a duplicate or provider-invalid name, a definition that is not an object
 * schema, and default settings that the tool's own descriptors would reject.
 */
import { AppError } from '../../errors';
import { isPlainObject } from '../../is-plain-object';
import { ToolParameterError } from './errors';
import { getDefaultToolSettings, normalizeToolParameters } from './settings-policy';
import type { RegisteredTool } from './types';

/** What every provider accepts as a function name (OpenAI's rule is the narrowest). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A tool that cannot be offered as written (a defect found when it registers). */
export class ToolRegistrationError extends AppError {
  constructor(message: string) {
    super('invalid_configuration', message);
  }
}

export interface ToolRegistry {
  register(tool: RegisteredTool): void;
  get(name: string): RegisteredTool | undefined;
  /** Every registered tool, in registration order. */
  /** Every tool in registration order (the same array until the next registration). */
  list(): readonly RegisteredTool[];
  has(name: string): boolean;
}

function checkTool(tool: RegisteredTool): void {
  const name = tool.definition?.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ToolRegistrationError(
      `Tool name ${JSON.stringify(name)} is invalid: providers accept 1 to 64 characters of letters, digits, "_" and "-".`,
    );
  }
  if (
    typeof tool.definition.description !== 'string' ||
    tool.definition.description.trim() === ''
  ) {
    throw new ToolRegistrationError(
      `Tool "${name}" needs a description: it is what the model reads to decide when to call it.`,
    );
  }
  const parameters = tool.definition.parameters;
  if (!isPlainObject(parameters) || parameters.type !== 'object') {
    throw new ToolRegistrationError(
      `Tool "${name}" must declare its parameters as a JSON Schema with "type": "object".`,
    );
  }
  if (typeof tool.execute !== 'function') {
    throw new ToolRegistrationError(`Tool "${name}" has no execute function.`);
  }
  const seen = new Set<string>();
  for (const descriptor of tool.settings.parameterDescriptors) {
    if (seen.has(descriptor.name)) {
      throw new ToolRegistrationError(
        `Tool "${name}" describes setting "${descriptor.name}" twice.`,
      );
    }
    seen.add(descriptor.name);
  }
  try {
    normalizeToolParameters(tool, getDefaultToolSettings(tool).parameters);
  } catch (error) {
    if (error instanceof ToolParameterError) {
      throw new ToolRegistrationError(
        `Tool "${name}" has an invalid default setting: ${error.message}`,
      );
    }
    throw error;
  }
}

export function createToolRegistry(): ToolRegistry {
  const tools = new Map<string, RegisteredTool>();
  // Listings are made per request; the array is made once per registration.
  let listed: readonly RegisteredTool[] | undefined;
  return {
    register(tool) {
      checkTool(tool);
      const name = tool.definition.name;
      if (tools.has(name)) {
        throw new ToolRegistrationError(
          `A tool named "${name}" is already registered; tool names must be unique.`,
        );
      }
      tools.set(name, tool);
      listed = undefined;
    },
    get: (name) => tools.get(name),
    list: () => {
      listed ??= Object.freeze([...tools.values()]);
      return listed;
    },
    has: (name) => tools.has(name),
  };
}

/** The registry the built-ins register into and the server uses. */
export const defaultToolRegistry: ToolRegistry = createToolRegistry();

export function registerTool(
  tool: RegisteredTool,
  registry: ToolRegistry = defaultToolRegistry,
): void {
  registry.register(tool);
}

export function getTool(
  name: string,
  registry: ToolRegistry = defaultToolRegistry,
): RegisteredTool | undefined {
  return registry.get(name);
}

export function listTools(registry: ToolRegistry = defaultToolRegistry): readonly RegisteredTool[] {
  return registry.list();
}
