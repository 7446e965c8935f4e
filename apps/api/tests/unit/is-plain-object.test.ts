import { expect, test } from 'bun:test';
import { isPlainObject } from '../../src/is-plain-object';

test('JSON objects, literals and null-prototype objects are plain objects', () => {
  expect(isPlainObject(JSON.parse('{"a":1}'))).toBe(true);
  expect(isPlainObject({})).toBe(true);
  expect(isPlainObject(Object.create(null))).toBe(true);
});

test('arrays, null, primitives and class instances are not', () => {
  for (const value of [[], null, undefined, 'text', 7, true, new Date(0), new Map()])
    expect(isPlainObject(value)).toBe(false);
});
