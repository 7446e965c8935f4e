/**
 * Statements built with Kysely once and run many times with new values.
 * Building a query tree, freezing it and compiling it to SQL cost more than
 * SQLite takes to run a small statement; a turn's checkpoints repeat the same
 * few statements dozens of times per second under load. A prepared query is
 * built on first use (per database, so the SQL is the dialect's), with a
 * marker in place of each named value; a call puts the values where the
 * markers were. The SQL stays Kysely's, so the schema's types still check it.
 * Kysely plugins run once, when the query is first compiled; the database is
 * opened without any.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { DatabaseSchema } from './schema';

type Database = Kysely<DatabaseSchema>;

/** Hands out the marker standing for one named value. */
export type ParameterSlot<Values> = <Name extends keyof Values & string>(
  name: Name,
) => Values[Name];

interface Compiled {
  template: CompiledQuery;
  /** For each parameter of the SQL: the name of the value it takes, or its fixed value. */
  slots: Array<{ name: string } | { value: unknown }>;
}

const MARKER_PREFIX = '\u0000mango-parameter:';

function markerFor(name: string): string {
  return `${MARKER_PREFIX}${name}\u0000`;
}

/**
 * Compiles `build` against `db` with markers for values, and checks that
 * every marker became a parameter of its own (none inlined into the SQL).
 */
function compileTemplate<Values, Row>(
  db: Database,
  build: (db: Database, slot: ParameterSlot<Values>) => Compilable<Row>,
): Compiled {
  const slot = ((name: string) => markerFor(name)) as ParameterSlot<Values>;
  const template = build(db, slot).compile();
  if (template.sql.includes(MARKER_PREFIX))
    throw new Error(`A prepared query inlined a value into its SQL: ${template.sql}`);
  const slots = template.parameters.map((parameter) => {
    if (typeof parameter !== 'string' || !parameter.includes(MARKER_PREFIX))
      return { value: parameter };
    const name = parameter.slice(MARKER_PREFIX.length, -1);
    if (parameter !== markerFor(name))
      throw new Error(
        `A prepared query built a value out of a slot (${JSON.stringify(parameter)}); pass the whole value as one slot.`,
      );
    return { name };
  });
  return { template, slots };
}

/** The compiled query for `values`, to run with `executeQuery` on `db` or a transaction of it. */
export type PreparedQuery<Values, Row> = (db: Database, values: Values) => CompiledQuery<Row>;

/**
 * A query prepared once per database. `build` receives the database and a
 * `slot(name)` to use wherever a value goes; it must not branch on values.
 *
 *   const touchChat = prepareQuery<{ id: string; at: string }>((db, slot) =>
 *     db.updateTable('chats').set({ updated_at: slot('at') }).where('id', '=', slot('id')));
 *   await transaction.executeQuery(touchChat(transaction, { id, at }));
 */
export function prepareQuery<Values extends Record<string, unknown>, Row = unknown>(
  build: (db: Database, slot: ParameterSlot<Values>) => Compilable<Row>,
): PreparedQuery<Values, Row> {
  // Keyed by the database's adapter, which its transactions share: one compilation per
  // database opened (the SQL depends on its dialect).
  const byAdapter = new WeakMap<object, Compiled>();
  return (db, values) => {
    const adapter = db.getExecutor().adapter as object;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      compiled = compileTemplate(db, build);
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = (values as Record<string, unknown>)[slot.name];
      if (value === undefined)
        throw new Error(`A prepared query was given no value for "${slot.name}".`);
      return value;
    });
    return { ...compiled.template, parameters } as CompiledQuery<Row>;
  };
}
