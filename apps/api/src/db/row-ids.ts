/**
 * Ids of the rows a running turn writes (docs/architecture.md#persistence): a
 * prefix naming what the id is for, then a time-ordered UUID (version 7: a
 * millisecond timestamp first, then 74 random bits) without its dashes.
 *
 * Time order keeps each new row's key at the right-hand end of its primary
 * key's B-tree, as a table's own row order is, instead of at a random leaf:
 * the saves of many turns at once then touch a few pages of each index
 * rather than one page per row. On SQLite, where every page a transaction
 * touches is written to the log again, a message save writes a third fewer
 * pages, and with 200 savers at once takes well under half the time
 * (`bench/message-saves.ts`, `IDS=random` for the old way); random keys also
 * grow slower as the table grows, where these do not.
 */
export function createRowId(prefix: string): string {
  return `${prefix}_${Bun.randomUUIDv7().replaceAll('-', '')}`;
}
