import { describe, expect, test } from 'bun:test';
import {
  clampIntegerSetting,
  clampNumberSetting,
  getBooleanSetting,
  getPathListSetting,
  getStringListSetting,
  getStringSetting,
} from '../../../../src/services/tools/stored-setting-readers';

describe('lenient readers for stored values', () => {
  test('clampIntegerSetting', () => {
    const bounds = { min: 5, max: 600, fallback: 30 };
    expect(clampIntegerSetting(700, bounds)).toBe(600);
    expect(clampIntegerSetting(1, bounds)).toBe(5);
    expect(clampIntegerSetting(12.9, bounds)).toBe(12);
    expect(clampIntegerSetting('45', bounds)).toBe(45);
    expect(clampIntegerSetting('abc', bounds)).toBe(30);
    expect(clampIntegerSetting(null, { fallback: 30 })).toBe(30);
    expect(clampIntegerSetting(Number.NaN, { fallback: 30 })).toBe(30);
  });

  test('clampNumberSetting keeps fractions', () => {
    expect(clampNumberSetting(0.25, { min: 0, max: 1, fallback: 0.5 })).toBe(0.25);
    expect(clampNumberSetting(2, { min: 0, max: 1, fallback: 0.5 })).toBe(1);
  });

  test('getStringSetting', () => {
    expect(getStringSetting('a', 'b')).toBe('a');
    expect(getStringSetting(1, 'b')).toBe('b');
    expect(getStringSetting('c', 'a', ['a', 'b'])).toBe('a');
  });

  test('getBooleanSetting', () => {
    expect(getBooleanSetting(true, false)).toBe(true);
    expect(getBooleanSetting('false', true)).toBe(false);
    expect(getBooleanSetting(1, true)).toBe(true);
  });

  test('getStringListSetting and getPathListSetting', () => {
    expect(getStringListSetting(['a', 2, 'b'], [])).toEqual(['a', 'b']);
    expect(getStringListSetting('a', ['x'])).toEqual(['x']);
    expect(getPathListSetting(['/a', { path: '/b', enabled: false }, { path: '' }, 5], [])).toEqual(
      [
        { path: '/a', enabled: true },
        { path: '/b', enabled: false },
      ],
    );
    expect(getPathListSetting({}, [{ path: '/x', enabled: true }])).toEqual([
      { path: '/x', enabled: true },
    ]);
  });
});
