import { describe, expect, test } from 'bun:test';
import {
  createToolRegistry,
  getTool,
  listTools,
  ToolRegistrationError,
} from '../../../../src/services/tools';
import type { RegisteredTool } from '../../../../src/services/tools/types';

function tool(name: string, overrides: Partial<RegisteredTool> = {}): RegisteredTool {
  return {
    definition: { name, description: 'Test tool.', parameters: { type: 'object', properties: {} } },
    settings: {
      title: name,
      description: 'Test tool.',
      category: 'interaction',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {},
      parameterDescriptors: [],
    },
    execute: async () => null,
    ...overrides,
  };
}

describe('tool registry', () => {
  test('registers and looks tools up by name, listing in registration order', () => {
    const registry = createToolRegistry();
    registry.register(tool('b_tool'));
    registry.register(tool('a_tool'));
    expect(registry.get('a_tool')?.definition.name).toBe('a_tool');
    expect(registry.has('b_tool')).toBe(true);
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.list().map((item) => item.definition.name)).toEqual(['b_tool', 'a_tool']);
  });

  test('a duplicate name is an error, never a silent replacement', () => {
    const registry = createToolRegistry();
    const first = tool('dup');
    registry.register(first);
    expect(() => registry.register(tool('dup'))).toThrow(ToolRegistrationError);
    expect(registry.get('dup')).toBe(first);
  });

  test.each(['', 'has space', 'dotted.name', 'x'.repeat(65), 'ümlaut', 'a/b'])(
    'a name providers would reject (%p) is an error',
    (name) => {
      expect(() => createToolRegistry().register(tool(name))).toThrow(/letters, digits/);
    },
  );

  test('a 64-character name with dashes and underscores is accepted', () => {
    const registry = createToolRegistry();
    registry.register(tool(`a-b_${'c'.repeat(60)}`));
    expect(registry.list()).toHaveLength(1);
  });

  test('parameters must be an object schema', () => {
    const bad = tool('bad', {
      definition: { name: 'bad', description: 'x', parameters: { type: 'string' } },
    });
    expect(() => createToolRegistry().register(bad)).toThrow(/"type": "object"/);
  });

  test('a default setting the tool’s own descriptors reject is caught at registration', () => {
    const bad = tool('bad_default');
    bad.settings.defaultParameters = { timeoutSeconds: 1 };
    bad.settings.parameterDescriptors = [
      {
        name: 'timeoutSeconds',
        label: 'Timeout',
        description: '',
        type: 'number',
        min: 5,
        max: 600,
        defaultValue: 30,
      },
    ];
    expect(() => createToolRegistry().register(bad)).toThrow(/invalid default setting/);
  });

  test('fresh registries are independent of the default registry', () => {
    const registry = createToolRegistry();
    registry.register(tool('only_here'));
    expect(getTool('only_here')).toBeUndefined();
    expect(listTools().some((item) => item.definition.name === 'only_here')).toBe(false);
  });

  test('the default registry holds the built-ins once the tool layer is imported', () => {
    expect(getTool('get_current_datetime')?.settings.category).toBe('system');
  });
});
