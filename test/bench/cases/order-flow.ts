/**
 * The order-flow tapes' questions (order-flow/consolidated and /unconsolidated) and their
 * PostgreSQL twins: each tape's rows read back from the view into a table holding the document
 * the API answers with, with keyset indexes. Shared by order-flow-queries.ts and endpoints.ts.
 */
import { pipeline } from 'stream/promises';
import { Readable } from 'stream';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { PartitionKeys, pointerKey } from '../../../services/views/keys';
import {
  ORDER_FLOW_CONSOLIDATED_VIEW,
  ORDER_FLOW_PRINTS_VIEW,
  decodeRow,
  orderFlowKeys,
  orderFlowLayout,
  type OrderFlowRow,
} from '../../../services/views/order-flow';
import { WarmKeys, unpackBlock, warmField } from '../../../services/views/warm-tier';
import { CONSOLIDATED_RESPONSE } from '../../../api/endpoints/options/order-flow-consolidated';
import { UNCONSOLIDATED_RESPONSE } from '../../../api/endpoints/options/order-flow-unconsolidated';
import { samePage, type SideBySideQuery } from '../side-by-side';

export interface Tape {
  name: 'consolidated' | 'unconsolidated';
  view: string;
  path: string;
  table: string;
}
export const TAPES: Tape[] = [
  { name: 'consolidated', view: ORDER_FLOW_CONSOLIDATED_VIEW, path: '/v1/options/tool/order-flow/consolidated', table: 'of_consolidated' },
  { name: 'unconsolidated', view: ORDER_FLOW_PRINTS_VIEW, path: '/v1/options/tool/order-flow/unconsolidated', table: 'of_prints' },
];

/** The served version of `view` under `prefix`. */
export async function viewVersion(redis: Redis, prefix: string, view: string): Promise<number> {
  const v = await redis.get(pointerKey(prefix, view));
  if (v === null) throw new Error(`view ${view} is not built under prefix ${prefix}`);
  return Number(v);
}

/**
 * Every row of one session of a view, partition by partition: a hot session's stored rows (HSCAN),
 * a warm one's blocks decoded (services/views/warm-tier.ts).
 */
async function* sessionRows(redis: Redis, prefix: string, session: string, view: string, v: number): AsyncGenerator<OrderFlowRow> {
  const layout = orderFlowLayout<OrderFlowRow>(view);
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const keys = new PartitionKeys(prefix, view, v, p);
    const w = new WarmKeys(keys);
    if ((await redis.hget(w.tier, warmField(session))) !== null) {
      for (const body of await redis.hvalsBuffer(w.blocks(session))) yield* unpackBlock(layout, body, session);
      continue;
    }
    const k = orderFlowKeys(keys);
    let cursor = '0';
    do {
      const [next, flat] = await redis.hscanBuffer(k.rows(session), cursor, 'COUNT', 2000);
      cursor = next.toString();
      for (let i = 0; i < flat.length; i += 2) yield decodeRow(flat[i + 1], flat[i].toString(), session);
    } while (cursor !== '0');
  }
}

// --- PostgreSQL ------------------------------------------------------------------------------

const COLUMNS = [
  'row_key',
  'session_date',
  'ticker',
  'contract_type',
  'sector',
  'trade_side_code',
  'premium',
  'size',
  'volume',
  'dte',
  'strike_price',
  'trade_time',
  'doc',
];

function tsvEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
}

/**
 * Every row of `sessions` (hot or warm) of the tape's view read back from Redis into PostgreSQL
 * table `tape.table`, each with the document the API answers with (its own serializer), and the
 * keyset indexes a careful user would build.
 */
export async function loadOrderFlowTape(
  pool: Pool,
  redis: Redis,
  prefix: string,
  sessions: readonly string[],
  tape: Tape,
): Promise<{ rows: number; seconds: number; tableBytes: number; indexBytes: number }> {
  const t0 = Date.now();
  const v = await viewVersion(redis, prefix, tape.view);
  const c = await pool.connect();
  try {
    await c.query(`DROP TABLE IF EXISTS ${tape.table}`);
    await c.query(`CREATE TABLE ${tape.table} (
      row_key text NOT NULL, session_date date NOT NULL, ticker text NOT NULL, contract_type text NOT NULL,
      sector text NOT NULL, trade_side_code text NOT NULL, premium float8 NOT NULL, size int NOT NULL,
      volume bigint NOT NULL, dte float8 NOT NULL, strike_price float8 NOT NULL, trade_time bigint NOT NULL,
      doc jsonb NOT NULL)`);
    let n = 0;
    async function* lines() {
      for (const session of sessions) {
        for await (const r of sessionRows(redis, prefix, session, tape.view, v)) {
          // The document the API answers with (its own serializer), as jsonb.
          const doc = (tape.name === 'consolidated' ? CONSOLIDATED_RESPONSE : UNCONSOLIDATED_RESPONSE).serializeRow(r as never);
          n++;
          yield `${[r.rowKey, session, r.ticker, r.contractType, r.sector, r.tradeSideCode, r.premium, r.size, r.volume, r.dte, r.strikePrice, r.tradeTime].join('\t')}\t${tsvEscape(doc)}\n`;
        }
      }
    }
    await pipeline(Readable.from(lines()), c.query(copyFrom(`COPY ${tape.table} (${COLUMNS.join(',')}) FROM STDIN`)));
    // The indexes a careful user would build for these queries: keyset order per sort, per ticker.
    const idx = [
      '(session_date, trade_time DESC, row_key DESC)',
      '(session_date, ticker, trade_time DESC, row_key DESC)',
      '(session_date, premium DESC, row_key DESC)',
      '(session_date, size DESC, row_key DESC)',
      '(session_date, volume DESC, row_key DESC)',
      '(session_date, dte DESC, row_key DESC)',
      '(session_date, strike_price DESC, row_key DESC)',
      '(session_date, contract_type, trade_side_code, sector, trade_time DESC, row_key DESC)',
    ];
    for (const [i, cols] of idx.entries()) await c.query(`CREATE INDEX ${tape.table}_i${i} ON ${tape.table} ${cols}`);
    await c.query(`ANALYZE ${tape.table}`);
    const size = await c.query(`SELECT pg_table_size('${tape.table}') AS t, pg_indexes_size('${tape.table}') AS i`);
    return { rows: n, seconds: (Date.now() - t0) / 1000, tableBytes: Number(size.rows[0].t), indexBytes: Number(size.rows[0].i) };
  } finally {
    c.release();
  }
}

async function busiestMidTicker(redis: Redis, prefix: string, session: string, tape: Tape): Promise<string> {
  // A ticker of middling activity: the median of tickers by row count on the time index.
  const v = await viewVersion(redis, prefix, tape.view);
  const counts: [string, number][] = [];
  for (let p = 0; p < MARKET_PARTITIONS; p++) {
    const k = orderFlowKeys(new PartitionKeys(prefix, tape.view, v, p));
    for await (const keys of redis.scanStream({ match: k.ticker(session, '*'), count: 1000 })) {
      for (const key of keys as string[]) counts.push([key.slice(key.lastIndexOf(':') + 1), await redis.zcard(key)]);
    }
  }
  counts.sort((a, b) => a[1] - b[1]);
  return counts[Math.floor(counts.length / 2)][0];
}

/**
 * The tape's questions: the first page unfiltered, one ticker of middling activity, a selective
 * filter, premium descending (page 1, and page 20 by cursor, walked once through `post`). Each
 * answer is the same page as PostgreSQL's rows (one row more than the page, to see the next cursor).
 */
export async function orderFlowQueries(o: {
  redis: Redis;
  prefix: string;
  session: string;
  tape: Tape;
  pool: Pool;
  post: (path: string, body: unknown) => Promise<any>;
  /** A warm session of one ticker (in the PostgreSQL table too): its first page by time and by premium. */
  warm?: { session: string; ticker: string; back: number };
}): Promise<SideBySideQuery[]> {
  const { tape, pool } = o;
  const SESSION = o.session;
  const ticker = await busiestMidTicker(o.redis, o.prefix, SESSION, tape);
  const base = { sessionDate: SESSION, size: 50 };
  const byPremium = { ...base, sort: { field: 'PREMIUM', direction: 'DESCENDING' } };
  // Page 20 by cursor: walk 19 pages once, then hammer the 20th.
  let cursor: string[] | null = null;
  for (let i = 0; i < 19; i++) {
    const res: any = await o.post(tape.path, { ...byPremium, searchAfter: cursor });
    cursor = res.nextSearchAfter;
  }
  const pgCursor = (
    await pool.query(`SELECT premium, row_key FROM ${tape.table} WHERE session_date = $1 ORDER BY premium DESC, row_key DESC OFFSET 949 LIMIT 1`, [SESSION])
  ).rows[0];
  const sel = `SELECT doc FROM ${tape.table} WHERE session_date = $1`;
  const page = (api: any, rows: any[]) => samePage(api, rows, (r) => r.doc.id);
  const at = { path: tape.path, same: page };
  return [
    { ...at, name: 'first page, unfiltered', role: 'typical', body: base, sql: `${sel} ORDER BY trade_time DESC, row_key DESC LIMIT 51`, params: [SESSION] },
    {
      ...at,
      name: `one ticker (${ticker})`,
      body: { ...base, filter: { tickers: ticker } },
      sql: `${sel} AND ticker = $2 ORDER BY trade_time DESC, row_key DESC LIMIT 51`,
      params: [SESSION, ticker],
    },
    {
      ...at,
      name: 'PUT, premium >= $500k, ASK, TECHNOLOGY',
      role: 'heavy',
      body: { ...base, filter: { contractTypes: 'PUT', premiumRange: { min: 500000 }, tradeSideCodes: 'ASK', sectors: 'TECHNOLOGY' } },
      sql: `${sel} AND contract_type = 'PUT' AND premium >= 500000 AND trade_side_code = 'ASK' AND sector = 'TECHNOLOGY' ORDER BY trade_time DESC, row_key DESC LIMIT 51`,
      params: [SESSION],
    },
    { ...at, name: 'sort by premium desc, page 1', body: byPremium, sql: `${sel} ORDER BY premium DESC, row_key DESC LIMIT 51`, params: [SESSION] },
    ...(o.warm
      ? [
          {
            ...at,
            name: `one ticker (${o.warm.ticker}), warm session ${o.warm.back} back`,
            role: 'typical' as const,
            body: { ...base, sessionDate: o.warm.session, filter: { tickers: o.warm.ticker } },
            sql: `${sel} AND ticker = $2 ORDER BY trade_time DESC, row_key DESC LIMIT 51`,
            params: [o.warm.session, o.warm.ticker],
          },
          {
            ...at,
            name: `one ticker (${o.warm.ticker}), warm session ${o.warm.back} back, by premium`,
            role: 'heavy' as const,
            body: { ...byPremium, sessionDate: o.warm.session, filter: { tickers: o.warm.ticker } },
            sql: `${sel} AND ticker = $2 ORDER BY premium DESC, row_key DESC LIMIT 51`,
            params: [o.warm.session, o.warm.ticker],
          },
        ]
      : []),
    {
      ...at,
      name: 'sort by premium desc, page 20 (cursor)',
      body: { ...byPremium, searchAfter: cursor },
      sql: `${sel} AND (premium, row_key) < ($2, $3) ORDER BY premium DESC, row_key DESC LIMIT 51`,
      params: [SESSION, pgCursor.premium, pgCursor.row_key],
    },
  ];
}
