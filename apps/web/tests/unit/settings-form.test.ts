import { describe, expect, test } from 'bun:test';
import type { ToolSettingsDescriptor } from '@mango/shared';
import {
  changedParameters,
  draftOf,
  numberHint,
  parameterValue,
  resetBody,
  switchState,
} from '../../src/lib/settings-form';

const tool: ToolSettingsDescriptor = {
  name: 'list_directory',
  title: 'List directory',
  description: 'Lists a directory.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  enabled: true,
  source: 'builtin',
  updatedAt: null,
  defaultParameters: { maxEntries: 500, includeDotfiles: false, allowedPaths: [], mode: 'fast' },
  parameters: {
    maxEntries: 200,
    includeDotfiles: true,
    allowedPaths: [{ path: '/srv', enabled: false }],
    envVars: ['HOME'],
    mode: 'fast',
  },
  parameterDescriptors: [
    {
      name: 'maxEntries',
      label: 'Max entries',
      description: 'At most this many.',
      type: 'number',
      integer: true,
      min: 1,
      max: 10000,
      defaultValue: 500,
    },
    {
      name: 'includeDotfiles',
      label: 'Dotfiles',
      description: '',
      type: 'boolean',
      defaultValue: false,
    },
    {
      name: 'allowedPaths',
      label: 'Allowed',
      description: '',
      type: 'path_list',
      defaultValue: [],
    },
    { name: 'envVars', label: 'Env', description: '', type: 'string_list', defaultValue: [] },
    {
      name: 'mode',
      label: 'Mode',
      description: '',
      type: 'select',
      options: [
        { value: 'fast', label: 'Fast' },
        { value: 'slow', label: 'Slow' },
      ],
      defaultValue: 'fast',
    },
  ],
};

describe('settings forms drawn from descriptors', () => {
  test('the draft holds every described setting in an editable form', () => {
    expect(draftOf(tool)).toEqual({
      maxEntries: '200',
      includeDotfiles: true,
      allowedPaths: [{ path: '/srv', enabled: false }],
      envVars: ['HOME'],
      mode: 'fast',
    });
  });

  test('an unchanged draft sends nothing; a changed one sends only what changed', () => {
    const draft = draftOf(tool);
    expect(changedParameters(tool, draft)).toEqual({});
    const changed = {
      ...draft,
      maxEntries: ' 50 ',
      allowedPaths: [
        { path: '/srv', enabled: true },
        { path: '  ', enabled: true },
      ],
      envVars: ['HOME', ' ', 'PATH '],
    };
    expect(changedParameters(tool, changed)).toEqual({
      maxEntries: 50,
      allowedPaths: [{ path: '/srv', enabled: true }],
      envVars: ['HOME', 'PATH'],
    });
  });

  test('a number field that does not read as a number is sent as typed, for the server to explain', () => {
    const [maxEntries] = tool.parameterDescriptors;
    if (!maxEntries) throw new Error('no descriptor');
    expect(parameterValue(maxEntries, '12abc')).toBe('12abc');
    expect(parameterValue(maxEntries, '')).toBe('');
    expect(parameterValue(maxEntries, '1e3')).toBe(1000);
    expect(numberHint(maxEntries)).toBe('1 to 10000, whole numbers');
  });

  test('reset puts back the switch and every default', () => {
    expect(resetBody({ ...tool, enabled: false })).toEqual({
      enabled: true,
      parameters: tool.defaultParameters,
    });
  });

  test('a tool that cannot be switched off has its switch disabled, with the reason', () => {
    expect(switchState(tool)).toEqual({ disabled: false });
    expect(switchState({ ...tool, canDisable: false })).toEqual({
      disabled: true,
      reason: 'This tool cannot be switched off.',
    });
  });
});
