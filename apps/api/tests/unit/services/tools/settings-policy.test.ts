import { describe, expect, test } from 'bun:test';
import { ToolParameterError } from '../../../../src/services/tools/errors';
import {
  createEffectiveSettingsLookup,
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from '../../../../src/services/tools/settings-policy';
import type { RegisteredTool } from '../../../../src/services/tools/types';

function sampleTool(
  overrides: Partial<RegisteredTool['settings']> = {},
  name = 'sample',
): RegisteredTool {
  return {
    definition: {
      name,
      description: 'A sample tool.',
      parameters: { type: 'object', properties: {} },
    },
    settings: {
      title: 'Sample',
      description: 'Sample tool.',
      category: 'system',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: 30,
        label: 'x',
        verbose: false,
        mode: 'fast',
        tags: [],
        allowedPaths: [],
      },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout',
          description: '',
          type: 'number',
          integer: true,
          min: 5,
          max: 600,
          defaultValue: 30,
        },
        {
          name: 'ratio',
          label: 'Ratio',
          description: '',
          type: 'number',
          min: 0,
          max: 1,
          defaultValue: 0.5,
        },
        { name: 'label', label: 'Label', description: '', type: 'string', defaultValue: 'x' },
        {
          name: 'verbose',
          label: 'Verbose',
          description: '',
          type: 'boolean',
          defaultValue: false,
        },
        {
          name: 'mode',
          label: 'Mode',
          description: '',
          type: 'select',
          defaultValue: 'fast',
          options: [
            { value: 'fast', label: 'Fast' },
            { value: 'slow', label: 'Slow' },
          ],
        },
        { name: 'tags', label: 'Tags', description: '', type: 'string_list', defaultValue: [] },
        {
          name: 'allowedPaths',
          label: 'Allowed',
          description: '',
          type: 'path_list',
          defaultValue: [],
        },
      ],
      ...overrides,
    },
    execute: async () => 'ok',
  };
}

describe('getDefaultToolSettings', () => {
  test('takes defaultParameters first and fills the rest from descriptor defaults', () => {
    expect(getDefaultToolSettings(sampleTool())).toEqual({
      enabled: true,
      parameters: {
        timeoutSeconds: 30,
        ratio: 0.5,
        label: 'x',
        verbose: false,
        mode: 'fast',
        tags: [],
        allowedPaths: [],
      },
    });
  });

  test('returns copies, so callers cannot change the tool metadata', () => {
    const tool = sampleTool();
    const defaults = getDefaultToolSettings(tool);
    (defaults.parameters.tags as string[]).push('mutated');
    expect(tool.settings.defaultParameters.tags).toEqual([]);
  });

  test('a tool disabled by default starts disabled', () => {
    expect(getDefaultToolSettings(sampleTool({ enabledByDefault: false })).enabled).toBe(false);
  });
});

describe('mergeToolSettings: defaults < saved < updates', () => {
  const tool = sampleTool();

  test('saved values override defaults, updates override saved', () => {
    const merged = mergeToolSettings(
      tool,
      { enabled: false, parameters: { timeoutSeconds: 60, label: 'saved' } },
      { parameters: { timeoutSeconds: 90 } },
    );
    expect(merged.enabled).toBe(false);
    expect(merged.parameters.timeoutSeconds).toBe(90);
    expect(merged.parameters.label).toBe('saved');
    expect(merged.parameters.mode).toBe('fast');
  });

  test('an update of enabled wins over the saved flag', () => {
    expect(mergeToolSettings(tool, { enabled: false }, { enabled: true }).enabled).toBe(true);
  });

  test('no saved row and no update gives the defaults', () => {
    expect(mergeToolSettings(tool)).toEqual(getDefaultToolSettings(tool));
  });

  test('an invalid update throws ToolParameterError', () => {
    expect(() => mergeToolSettings(tool, undefined, { parameters: { timeoutSeconds: 4 } })).toThrow(
      ToolParameterError,
    );
  });

  test('disabling a tool that cannot be disabled is refused', () => {
    const fixed = sampleTool({ canDisable: false });
    expect(() => mergeToolSettings(fixed, undefined, { enabled: false })).toThrow(
      /cannot be disabled/,
    );
    // A stored "disabled" row for such a tool is coerced, not obeyed.
    expect(mergeToolSettings(fixed, { enabled: false }).enabled).toBe(true);
  });
});

describe('normalizeToolParameters', () => {
  const tool = sampleTool();
  const refusal = (params: unknown): ToolParameterError => {
    try {
      normalizeToolParameters(tool, params);
    } catch (error) {
      if (error instanceof ToolParameterError) return error;
      throw error;
    }
    throw new Error('expected a ToolParameterError');
  };

  test('accepts valid values and returns only the given keys', () => {
    expect(
      normalizeToolParameters(tool, {
        timeoutSeconds: 5,
        ratio: 1,
        mode: 'slow',
        tags: ['a'],
        allowedPaths: [{ path: '/srv', enabled: false }],
      }),
    ).toEqual({
      timeoutSeconds: 5,
      ratio: 1,
      mode: 'slow',
      tags: ['a'],
      allowedPaths: [{ path: '/srv', enabled: false }],
    });
  });

  test('unknown name: names the key and lists the known settings', () => {
    const error = refusal({ colour: 'red' });
    expect(error.key).toBe('colour');
    expect(error.message).toContain('"colour"');
    expect(error.message).toContain('timeoutSeconds');
  });

  test('number below the minimum: names key, range and value', () => {
    const error = refusal({ timeoutSeconds: 4 });
    expect(error.key).toBe('timeoutSeconds');
    expect(error.message).toContain('from 5 to 600');
    expect(error.message).toContain('the number 4');
  });

  test('number above the maximum', () => {
    expect(refusal({ timeoutSeconds: 601 }).message).toContain('the number 601');
  });

  test('a fraction where a whole number is required', () => {
    expect(refusal({ timeoutSeconds: 30.5 }).message).toContain('whole number');
  });

  test('a numeric string is the wrong type, not coerced', () => {
    expect(refusal({ timeoutSeconds: '30' }).message).toContain('a string ("30")');
  });

  test('NaN and Infinity are refused', () => {
    expect(refusal({ ratio: Number.NaN }).key).toBe('ratio');
    expect(refusal({ ratio: Number.POSITIVE_INFINITY }).key).toBe('ratio');
  });

  test('string of the wrong type', () => {
    expect(refusal({ label: 3 }).message).toContain('must be a string');
  });

  test('boolean given as text', () => {
    expect(refusal({ verbose: 'true' }).message).toContain('true or false');
  });

  test('select value outside its options lists the options', () => {
    const error = refusal({ mode: 'medium' });
    expect(error.message).toContain('"fast", "slow"');
    expect(error.message).toContain('medium');
  });

  test('string_list with a non-string item', () => {
    expect(refusal({ tags: ['a', 1] }).key).toBe('tags');
  });

  test('path_list entries need a non-empty path and a boolean enabled, nothing else', () => {
    expect(refusal({ allowedPaths: ['/srv'] }).message).toContain('entry 0');
    expect(refusal({ allowedPaths: [{ path: ' ', enabled: true }] }).key).toBe('allowedPaths');
    expect(refusal({ allowedPaths: [{ path: '/a', enabled: 'yes' }] }).key).toBe('allowedPaths');
    expect(refusal({ allowedPaths: [{ path: '/a', enabled: true, extra: 1 }] }).key).toBe(
      'allowedPaths',
    );
    expect(refusal({ allowedPaths: [{ path: '/a\0b', enabled: true }] }).key).toBe('allowedPaths');
  });

  test('parameters that are not an object', () => {
    expect(refusal([1, 2]).key).toBe('parameters');
    expect(refusal('x').key).toBe('parameters');
  });
});

describe('getSafeEffectiveToolSettings: a corrupt row never breaks a tool', () => {
  const tool = sampleTool();

  test('bad JSON falls back to defaults and keeps enabled: false', () => {
    const settings = getSafeEffectiveToolSettings(tool, {
      enabled: false,
      parameters: '{not json',
    });
    expect(settings).toEqual({
      enabled: false,
      parameters: getDefaultToolSettings(tool).parameters,
    });
  });

  test('parameters stored as a JSON string are read', () => {
    const settings = getSafeEffectiveToolSettings(tool, { parameters: '{"timeoutSeconds":45}' });
    expect(settings.parameters.timeoutSeconds).toBe(45);
  });

  test('out-of-range numbers are clamped, wrong types fall back, unknown names are dropped', () => {
    const settings = getSafeEffectiveToolSettings(tool, {
      enabled: true,
      parameters: {
        timeoutSeconds: 100000,
        ratio: -3,
        label: 42,
        mode: 'turbo',
        verbose: 'yes',
        ghost: 1,
      },
    });
    expect(settings.parameters.timeoutSeconds).toBe(600);
    expect(settings.parameters.ratio).toBe(0);
    expect(settings.parameters.label).toBe('x');
    expect(settings.parameters.mode).toBe('fast');
    expect(settings.parameters.verbose).toBe(false);
    expect(settings.parameters).not.toHaveProperty('ghost');
  });

  test('a non-boolean enabled falls back to the default flag', () => {
    const tool = sampleTool({ enabledByDefault: false });
    expect(getSafeEffectiveToolSettings(tool, { enabled: null }).enabled).toBe(false);
  });
});

describe('getToolDefinitionsForTools', () => {
  const plain = sampleTool({}, 'plain');
  const off = sampleTool({ enabledByDefault: false }, 'off');
  const built: RegisteredTool = {
    ...sampleTool({}, 'built'),
    buildDefinition: (settings) => ({
      name: 'built',
      description: `Times out after ${settings.parameters.timeoutSeconds} s.`,
      parameters: { type: 'object', properties: {} },
    }),
  };

  test('keeps enabled tools only and uses buildDefinition with the given settings', () => {
    const settings = new Map([
      ['plain', { enabled: false, parameters: {} }],
      ['built', { enabled: true, parameters: { timeoutSeconds: 77 } }],
    ]);
    const definitions = getToolDefinitionsForTools([plain, off, built], settings);
    expect(definitions.map((definition) => definition.name)).toEqual(['built']);
    expect(definitions[0]?.description).toBe('Times out after 77 s.');
  });

  test('without settings each tool uses its defaults', () => {
    const names = getToolDefinitionsForTools([plain, off, built]).map(
      (definition) => definition.name,
    );
    expect(names).toEqual(['plain', 'built']);
  });

  test('a buildDefinition that renames the tool is a programming error', () => {
    const renaming: RegisteredTool = {
      ...sampleTool({}, 'renaming'),
      buildDefinition: () => ({ name: 'other', description: 'x', parameters: { type: 'object' } }),
    };
    expect(() => getToolDefinitionsForTools([renaming])).toThrow(/keep the registered name/);
  });
});

describe('createEffectiveSettingsLookup (tool sources, per listing)', () => {
  test('a tool without a saved row gets its defaults: the same object each time, frozen through', () => {
    const settingsOf = createEffectiveSettingsLookup();
    const tool = sampleTool();
    const first = settingsOf(tool, undefined);
    expect(first).toEqual(getSafeEffectiveToolSettings(tool, undefined));
    expect(settingsOf(tool, undefined)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.parameters)).toBe(true);
    const tags = first.parameters.tags as string[];
    expect(() => tags.push('changed')).toThrow(TypeError);
    // The tool's own declared defaults are not frozen with them.
    expect(Object.isFrozen(tool.settings.defaultParameters.tags)).toBe(false);
    expect(getDefaultToolSettings(tool).parameters.tags).toEqual([]);
  });

  test('a saved row gets settings of its own, merged each time', () => {
    const settingsOf = createEffectiveSettingsLookup();
    const tool = sampleTool();
    const saved = { enabled: false, parameters: { timeoutSeconds: 60 } };
    const first = settingsOf(tool, saved);
    expect(first.enabled).toBe(false);
    expect(first.parameters.timeoutSeconds).toBe(60);
    expect(settingsOf(tool, saved)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
  });
});
