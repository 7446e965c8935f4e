/**
 * The one test for "a plain object": what JSON objects, object literals and
 * `Object.create(null)` are, and what arrays, null and class instances are not.
 * Used wherever a value of unknown shape (a stored row, a model's arguments, a
 * schema nobody here wrote) is read as a record of named fields.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
