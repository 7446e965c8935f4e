import { describe, expect, test } from 'bun:test';
import {
  BODY_LIMITS,
  bodyLimitFor,
  createJsonDepthCounter,
  DEFAULT_BODY_LIMIT_BYTES,
  isJsonContentType,
  TURN_BODY_LIMIT_BYTES,
} from '../../../src/routes/request-body';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createJsonDepthCounter', () => {
  test('allows nesting up to the limit and refuses one level more', () => {
    expect(createJsonDepthCounter(3).push(bytes('[{"a":[1]}]'))).toBe(true);
    expect(createJsonDepthCounter(3).push(bytes('[{"a":[[1]]}]'))).toBe(false);
  });

  test('counts depth, not the number of brackets', () => {
    expect(createJsonDepthCounter(3).push(bytes('[[1],[2],[3],{"a":{}}]'))).toBe(true);
  });

  test('ignores brackets inside strings, escaped quotes included', () => {
    const counter = createJsonDepthCounter(1);
    expect(counter.push(bytes('{"a":"[[[{{{\\"[[[\\\\","b":"]]]"}'))).toBe(true);
    expect(createJsonDepthCounter(1).push(bytes('["\\\\"[]]'))).toBe(false);
  });

  test('keeps its state across chunks, even inside a string or an escape', () => {
    const counter = createJsonDepthCounter(2);
    expect(counter.push(bytes('["ab\\'))).toBe(true);
    expect(counter.push(bytes('"[[[", ['))).toBe(true);
    expect(counter.push(bytes('['))).toBe(false);
  });

  test('multi-byte UTF-8 characters never look like brackets', () => {
    expect(createJsonDepthCounter(1).push(bytes('["ſ⁅⁆「」𝄞[[["]'))).toBe(true);
  });
});

describe('content type and limits', () => {
  test('application/json with or without parameters is JSON; anything else is not', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=utf-8')).toBe(true);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType('application/json-seq')).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });

  test('each route gets its own limit, other routes the default', () => {
    expect(bodyLimitFor('POST', '/api/chats/abc/turns').maxBytes).toBe(TURN_BODY_LIMIT_BYTES);
    expect(bodyLimitFor('POST', '/api/chats/abc/turns/cancel').maxBytes).toBe(
      DEFAULT_BODY_LIMIT_BYTES,
    );
    expect(bodyLimitFor('GET', '/api/chats').maxBytes).toBe(DEFAULT_BODY_LIMIT_BYTES);
    expect(bodyLimitFor('POST', '/api/auth/sign-in/email').route).toBe('/api/auth/*');
    for (const limit of BODY_LIMITS)
      expect(limit.maxBytes).toBeLessThanOrEqual(TURN_BODY_LIMIT_BYTES);
  });
});
