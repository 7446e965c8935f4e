/** A throwaway PostgreSQL for one bench section: started, given a fresh database, stopped after. */
import { startTestPostgres } from '../apps/api/tests/support/postgres-server';

export async function withBenchPostgres<T>(run: (url: string) => Promise<T>): Promise<T> {
  const postgres = await startTestPostgres();
  try {
    return await run(await postgres.createDatabase());
  } finally {
    postgres.stop();
  }
}
