import { expect, test } from 'bun:test';
import { FunctionCallingConfigMode } from '@google/genai';
import { prepareGeminiTools } from '../../../../../src/services/providers/gemini/prepare-tools';
import type { ToolDefinition } from '../../../../../src/services/providers/spec';

const tool: ToolDefinition = {
  name: 'get_current_datetime',
  description: 'The current date and time.',
  parameters: { type: 'object', properties: {} },
};

// The adapter writes the SDK's enum values out (so that it does not load the SDK); they must
// stay the SDK's own.
test.each([
  ['auto', FunctionCallingConfigMode.AUTO],
  ['none', FunctionCallingConfigMode.NONE],
  ['required', FunctionCallingConfigMode.ANY],
] as const)('tool choice %s is the SDK function-calling mode %s', (choice, mode) => {
  expect(prepareGeminiTools([tool], choice).toolConfig).toEqual({
    functionCallingConfig: { mode },
  });
});

test('no tools, no tool fields', () => {
  expect(prepareGeminiTools([], 'required')).toEqual({});
});
