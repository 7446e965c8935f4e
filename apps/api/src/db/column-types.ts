/**
 * The column types of the one schema, per dialect. SQLite has no boolean,
 * timestamp or JSON types, so those columns are integer 0/1, ISO-8601 text and
 * JSON text there; `db/values.ts` reads both representations into one shape.
 */
import type { ColumnDataType } from 'kysely';

/** The databases the one schema runs on. */
export const DATABASE_KINDS = ['sqlite', 'postgres'] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

export interface ColumnTypes {
  id: ColumnDataType;
  text: ColumnDataType;
  integer: ColumnDataType;
  /** Whole numbers that may exceed 2^31 (file sizes). */
  bigInteger: ColumnDataType;
  /** Fractional numbers (mtimes in milliseconds). */
  double: ColumnDataType;
  boolean: ColumnDataType;
  timestamp: ColumnDataType;
  json: ColumnDataType;
  bytes: ColumnDataType;
}

export function getColumnTypes(kind: DatabaseKind): ColumnTypes {
  if (kind === 'postgres') {
    return {
      id: 'text',
      text: 'text',
      integer: 'integer',
      bigInteger: 'bigint',
      double: 'double precision',
      boolean: 'boolean',
      timestamp: 'timestamptz',
      json: 'jsonb',
      bytes: 'bytea',
    };
  }
  return {
    id: 'text',
    text: 'text',
    integer: 'integer',
    bigInteger: 'integer',
    double: 'real',
    boolean: 'integer',
    // DATE is SQLite's conventional name for ISO-8601 text (and what better-auth expects).
    timestamp: 'date',
    json: 'text',
    bytes: 'blob',
  };
}
