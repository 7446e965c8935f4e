/**
 * Readers for stored setting values (docs/tool-system.md#settings-policy): each coerces what the database
 * holds into the type a tool expects — clamped into range, or the fallback —
 * and never throws, because there is no model turn to hand an error to when a
 * stored row is read. Requests are validated strictly elsewhere
 * (`normalizeToolParameters`).
 */
import { isPlainObject } from '../../is-plain-object';
import type { PathListEntry } from './types';

export interface NumberSettingBounds {
  min?: number;
  max?: number;
  fallback: number;
}

function readNumeric(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function clampNumber(value: number, { min, max }: NumberSettingBounds): number {
  let result = value;
  if (min !== undefined && result < min) result = min;
  if (max !== undefined && result > max) result = max;
  return result;
}

/** A stored number clamped into range; a non-number (or numeric text that is not a number) yields the fallback. */
export function clampNumberSetting(value: unknown, bounds: NumberSettingBounds): number {
  const numeric = readNumeric(value);
  return numeric === undefined ? bounds.fallback : clampNumber(numeric, bounds);
}

/** A stored whole number, truncated toward zero and clamped into range; anything else yields the fallback. */
export function clampIntegerSetting(value: unknown, bounds: NumberSettingBounds): number {
  const numeric = readNumeric(value);
  return numeric === undefined ? bounds.fallback : clampNumber(Math.trunc(numeric), bounds);
}

/** A stored string (one of `allowed` when given); anything else yields the fallback. */
export function getStringSetting(
  value: unknown,
  fallback: string,
  allowed?: readonly string[],
): string {
  if (typeof value !== 'string') return fallback;
  if (allowed && !allowed.includes(value)) return fallback;
  return value;
}

export function getBooleanSetting(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fallback;
}

/** A stored list of strings; non-string items are dropped, a non-array yields the fallback. */
export function getStringListSetting(value: unknown, fallback: readonly string[]): string[] {
  if (!Array.isArray(value)) return [...fallback];
  return value.filter((item): item is string => typeof item === 'string');
}

/**
 * A stored path list. Plain strings are read as enabled entries; malformed
 * entries are dropped. A non-array yields the fallback.
 */
export function getPathListSetting(
  value: unknown,
  fallback: readonly PathListEntry[],
): PathListEntry[] {
  if (!Array.isArray(value)) return fallback.map((entry) => ({ ...entry }));
  const entries: PathListEntry[] = [];
  for (const item of value) {
    if (typeof item === 'string' && item.trim() !== '' && !item.includes('\0')) {
      entries.push({ path: item, enabled: true });
    } else if (
      isPlainObject(item) &&
      typeof item.path === 'string' &&
      item.path.trim() !== '' &&
      !item.path.includes('\0')
    ) {
      entries.push({ path: item.path, enabled: item.enabled !== false });
    }
  }
  return entries;
}
