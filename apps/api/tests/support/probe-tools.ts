/**
 * Test tools that report the settings they run with: one that can be switched
 * off and one that cannot (`canDisable: false`), each with a bounded whole
 * number and a select setting.
 */
import type { RegisteredTool, ToolSettingsMetadata } from '../../src/services/tools/types';

function probeSettings(canDisable: boolean): ToolSettingsMetadata {
  return {
    title: canDisable ? 'Switchable probe' : 'Always-on probe',
    description: 'Reports the settings it runs with.',
    category: 'system',
    enabledByDefault: true,
    canDisable,
    defaultParameters: { limit: 10, mode: 'fast' },
    parameterDescriptors: [
      {
        name: 'limit',
        label: 'Limit',
        description: 'A bounded whole number.',
        type: 'number',
        integer: true,
        min: 1,
        max: 100,
        defaultValue: 10,
      },
      {
        name: 'mode',
        label: 'Mode',
        description: 'One of two modes.',
        type: 'select',
        options: [
          { value: 'fast', label: 'Fast' },
          { value: 'thorough', label: 'Thorough' },
        ],
        defaultValue: 'fast',
      },
    ],
  };
}

function probe(name: string, canDisable: boolean): RegisteredTool {
  return {
    definition: {
      name,
      description: 'Reports the settings it runs with.',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
    },
    settings: probeSettings(canDisable),
    execute: async (_args, context) => ({ parameters: context.parameters }),
  };
}

export const switchableProbeTool = probe('switchable_probe', true);
export const alwaysOnProbeTool = probe('always_on_probe', false);
