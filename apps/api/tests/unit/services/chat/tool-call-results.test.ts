import { describe, expect, test } from 'bun:test';
import {
  parseToolCallArguments,
  serializeToolResult,
} from '../../../../src/services/chat/tool-call-results';

describe('tool call arguments and results', () => {
  test('empty arguments are {}; invalid JSON is validation_failed with the parser message', () => {
    expect(parseToolCallArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolCallArguments(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    const bad = parseToolCallArguments('{"a":');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('validation_failed');
      expect(bad.error.message).toMatch(/not valid JSON \(.+\)/);
    }
  });

  test('results are serialised; strings pass through; what JSON cannot hold is an error', () => {
    expect(serializeToolResult({ a: [1, 'b'] })).toEqual({ ok: true, content: '{"a":[1,"b"]}' });
    expect(serializeToolResult('plain')).toEqual({ ok: true, content: 'plain' });
    expect(serializeToolResult(undefined)).toEqual({ ok: true, content: 'null' });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const value of [circular, { n: 1n }, () => 1]) {
      const result = serializeToolResult(value);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('execution_failed');
    }
  });
});
