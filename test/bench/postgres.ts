/**
 * The PostgreSQL side the query benchmarks share: where it is (PG_URL, default the local cluster
 * Debian's `postgresql` package starts), a pool that says so plainly when it is not there, and
 * bulk loading with COPY.
 */
import { pipeline } from 'stream/promises';
import { Readable } from 'stream';
import { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A pool on PG_URL, checked with one query (so a missing server fails here, with the fix, not mid-run). */
export async function openPostgres(max: number): Promise<Pool> {
  const pool = new Pool({ connectionString: PG_URL, max });
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end();
    throw new Error(`PostgreSQL is not reachable at ${PG_URL} (${(err as Error).message}): apt-get install -y postgresql, or set PG_URL`, { cause: err });
  }
  return pool;
}

const tsv = (v: unknown) => (v === null || v === undefined ? '\\N' : String(v));

/** COPY rows into `table` (values written with String(); null and undefined as NULL; no tabs or newlines in them). */
export async function copyRows(pool: Pool, table: string, columns: readonly string[], rows: Iterable<readonly unknown[]>): Promise<void> {
  const c = await pool.connect();
  try {
    await pipeline(
      Readable.from(
        (function* () {
          for (const r of rows) yield `${r.map(tsv).join('\t')}\n`;
        })(),
      ),
      c.query(copyFrom(`COPY ${table} (${columns.join(',')}) FROM STDIN`)),
    );
  } finally {
    c.release();
  }
}
