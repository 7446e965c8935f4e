/**
 * Reads column values that the two drivers return differently (a `Date` or an
 * ISO string, a boolean or 0/1, parsed JSON or JSON text) into one shape, and
 * writes values in the form both accept.
 */

/** A timestamp column as an ISO-8601 string. */
export function readTimestamp(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

/** A boolean column; null stays null (the column was never set). */
export function readBoolean(value: boolean | number | null | undefined): boolean | null {
  if (value === null || value === undefined) return null;
  return value === true || value === 1;
}

/**
 * A JSON column as a value. Text that is not valid JSON is returned as the raw
 * string, so a corrupt row reaches the code that decides what to do with it
 * (the settings policy coerces it) instead of failing the whole read.
 */
export function readJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A value for a JSON column: JSON text, which `jsonb` and `text` columns both accept. */
export function writeJson(value: unknown): string {
  return JSON.stringify(value);
}

/** An ISO-8601 timestamp for a clock reading in milliseconds. */
export function writeTimestamp(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}
