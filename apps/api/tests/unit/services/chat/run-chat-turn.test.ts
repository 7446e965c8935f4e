import { describe, expect, test } from 'bun:test';
import {
  resolveMaxIterations,
  TurnOptionsError,
} from '../../../../src/services/chat/run-chat-turn';

describe('turn options', () => {
  test('maxIterations is 1–1000, default 25', () => {
    expect(resolveMaxIterations(undefined)).toBe(25);
    expect(resolveMaxIterations(1000)).toBe(1000);
    for (const value of [0, 1001, 2.5, Number.NaN])
      expect(() => resolveMaxIterations(value)).toThrow(TurnOptionsError);
  });
});
