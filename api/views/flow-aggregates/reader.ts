import type { RedisClient as Redis } from '../../../services/redis/client';
import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { fromDayNumber, nyLocalToEpochMs, toDayNumber } from '../../../services/domain/calendar';
import { partitionOf } from '../../../services/kafka/partition';
import {
  CONTRACT_FIELDS,
  CUBE_FIELDS,
  EXCHANGE_FIELDS,
  NET_FIELDS,
  TICKER_NET_FIELDS,
  PREMIUM_TIER_FIELDS,
  parseExchangeCell,
  parsePremiumNetCell,
  parseTickerNetCell,
  FLOW_AGGREGATES_VIEW,
  FlowAggregateKeys,
  MINUTE_MS,
  OSI_PACKING,
  PACKING,
  osiBlock,
  osiField,
  unpackBlock,
  unpackBlockWhere,
  barOfPrint,
  cellOfPrint,
  contractId,
  decodeAtm,
  decodeBar,
  decodeLast,
  laterOf,
  minuteOf,
  parseCell,
  type AtmPrint,
  type Bar,
  type FlowCell,
  type LastPrice,
} from '../../../services/views/flow-aggregates';
import { PartitionKeys } from '../../../services/views/keys';
import { ORDER_FLOW_PRINTS_VIEW, type OrderFlowPrintRow } from '../../../services/views/order-flow';
import type { TimeWindow } from '../../request/time';
import { scanTable } from '../../tables/engine';
import { orderFlowTableQuery, type OrderFlowHints } from '../order-flow';
import { readCube, type CubeRead } from './tiers';

/**
 * Reading the flow-aggregates cube (services/views/flow-aggregates), or, when a request filters on
 * something a cell does not carry or its window cuts a minute, the prints view it is built from
 * (a scan through the table engine, api/tables/engine.ts scanTable). Both give FlowCells: the
 * cube its stored cells, the scan one cell per matching print (cellOfPrint, the projector's own
 * arithmetic), so an endpoint folds them the same way whichever path answered.
 */

export interface FlowQuery {
  /** Served versions of the cube and of the prints view (null: never built). */
  cubeVersion: number | null;
  printsVersion: number | null;
  sessions: readonly string[];
  window: TimeWindow | null;
  /** Underlyings the filter pins (undefined: every underlying). */
  tickers?: readonly string[];
  /** The request's whole row filter (filter object and filterExpression). */
  predicate(row: OrderFlowPrintRow): boolean;
  /** Whether `predicate` reads only fields a cell carries (CUBE_FIELDS). */
  cubeOnly: boolean;
  /**
   * The row fields each cell must carry: those the predicate reads and those the answer folds by.
   * The reader reads the smallest cell level that carries them all (LEVELS).
   */
  needs: ReadonlySet<string>;
  /** Narrowing hints for a scan (api/views/order-flow/planner.ts). */
  hints: OrderFlowHints;
}

/** Diagnostics for tests: which path answered. */
export type FlowPath = 'cube' | 'scan';

const partitions = () => Array.from({ length: MARKET_PARTITIONS }, (_, p) => p);
const keysOf = (prefix: string, version: number, p: number) => new FlowAggregateKeys(new PartitionKeys(prefix, FLOW_AGGREGATES_VIEW, version, p));

/** A window the cube answers: none, or one whose bounds are whole minutes. */
export function cubeWindow(w: TimeWindow | null): boolean {
  return w === null || (w.startMs % MINUTE_MS === 0 && w.endMs % MINUTE_MS === 0);
}

const inWindow = (w: TimeWindow | null, ms: number) => w === null || (ms >= w.startMs && ms < w.endMs);

/** Whether a window holds the whole New York day of session d: then every print of the session is in it. */
function holdsSession(w: TimeWindow, d: string): boolean {
  return w.startMs <= nyLocalToEpochMs(d, 0, 0) && nyLocalToEpochMs(fromDayNumber(toDayNumber(d) + 1), 0, 0) <= w.endMs;
}

/** Which path a query takes. */
export function flowPath(q: Pick<FlowQuery, 'cubeOnly' | 'window'>): FlowPath {
  return q.cubeOnly && cubeWindow(q.window) ? 'cube' : 'scan';
}

/** The (partition, session, ticker) hashes to read: the pinned tickers', or every ticker's (listed per partition). */
async function tickerTargets(redis: Redis, prefix: string, version: number, q: FlowQuery): Promise<[FlowAggregateKeys, string, string][]> {
  const out: [FlowAggregateKeys, string, string][] = [];
  if (q.tickers) {
    for (const t of new Set(q.tickers)) {
      const k = keysOf(prefix, version, partitionOf(t, MARKET_PARTITIONS));
      for (const d of q.sessions) out.push([k, d, t]);
    }
    return out;
  }
  const pipe = redis.pipeline();
  const asked: [FlowAggregateKeys, string][] = [];
  for (const p of partitions()) {
    const k = keysOf(prefix, version, p);
    for (const d of q.sessions) {
      pipe.zrange(k.tickers(d), 0, -1);
      asked.push([k, d]);
    }
  }
  const res = (await pipe.exec())!;
  asked.forEach(([k, d], i) => {
    const [err, ts] = res[i] as [Error | null, string[]];
    if (err) throw err;
    for (const t of ts) out.push([k, d, t]);
  });
  return out;
}

/**
 * A level of cells the reader can read: the row fields its cells carry, whether it is one hash per
 * underlying (listed per partition) or one per partition, whether it has minute hashes, and its
 * keys and field format.
 */
interface Level {
  name: string;
  carries: ReadonlySet<string>;
  perTicker: boolean;
  minutes: boolean;
  key(k: FlowAggregateKeys, d: string, ticker: string, byMinute: boolean): string;
  /** The value separator of the level's packed blocks (keys.ts PACKING). */
  valueSep: string;
  parse(ticker: string, field: string, value: string, byMinute: boolean): FlowCell;
}

const MARKET_FIELDS = new Set([...CUBE_FIELDS].filter((f) => !CONTRACT_FIELDS.has(f) && f !== 'TICKER'));
const COARSE_FIELDS = new Set([...CUBE_FIELDS].filter((f) => !CONTRACT_FIELDS.has(f)));

/** Cheapest first: the first that carries what a query needs answers it. */
const LEVELS: readonly Level[] = [
  {
    name: 'net',
    carries: NET_FIELDS,
    perTicker: false,
    minutes: true,
    key: (k, d, _t, m) => (m ? k.marketNetMinuteCells(d) : k.marketNetSessionCells(d)),
    valueSep: ',',
    parse: parseCell,
  },
  {
    name: 'premium-net',
    carries: PREMIUM_TIER_FIELDS,
    perTicker: false,
    minutes: false,
    key: (k, d) => k.premiumNetSessionCells(d),
    valueSep: ',',
    parse: (_t, f, v) => parsePremiumNetCell(f, v, false),
  },
  {
    name: 'exchange',
    carries: EXCHANGE_FIELDS,
    perTicker: false,
    minutes: false,
    key: (k, d) => k.marketExchangeCells(d),
    valueSep: ',',
    parse: (_t, f, v) => parseExchangeCell(f, v),
  },
  {
    name: 'ticker-net',
    carries: TICKER_NET_FIELDS,
    perTicker: true,
    minutes: true,
    key: (k, d, t, m) => (m ? k.tickerNetMinuteCells(d, t) : k.tickerNetSessionCells(d, t)),
    valueSep: ',',
    parse: parseTickerNetCell,
  },
  {
    name: 'market',
    carries: MARKET_FIELDS,
    perTicker: false,
    minutes: true,
    key: (k, d, _t, m) => (m ? k.marketMinuteCells(d) : k.marketSessionCells(d)),
    valueSep: ',',
    parse: parseCell,
  },
  {
    name: 'coarse',
    carries: COARSE_FIELDS,
    perTicker: true,
    minutes: true,
    key: (k, d, t, m) => (m ? k.coarseMinuteCells(d, t) : k.coarseSessionCells(d, t)),
    valueSep: ',',
    parse: parseCell,
  },
  {
    name: 'contract',
    carries: CUBE_FIELDS,
    perTicker: true,
    minutes: true,
    key: (k, d, t, m) => (m ? k.minuteCells(d, t) : k.sessionCells(d, t)),
    valueSep: ',',
    parse: parseCell,
  },
];

/** The level a query reads: the cheapest carrying every field it needs, with minutes if it reads any; undefined if none does. */
export function levelFor(q: Pick<FlowQuery, 'needs' | 'tickers'>, minutes: boolean): Level | undefined {
  // Pinned underlyings are read from cells that name theirs.
  const needs = q.tickers ? [...q.needs, 'TICKER'] : [...q.needs];
  return LEVELS.find((l) => (l.minutes || !minutes) && needs.every((f) => l.carries.has(f)));
}

/** levelFor, for a query the cube serves (flowPath 'cube'). */
export function cellLevel(q: Pick<FlowQuery, 'needs' | 'tickers'>, minutes: boolean): Level {
  const level = levelFor(q, minutes);
  if (!level) throw new Error(`no cell level carries ${[...q.needs].join(', ')}`);
  return level;
}

/**
 * The cells matching a query. `minutes`: 1-minute cells (clock-bucketed answers) for every
 * session; else whole-session cells (which then carry their sessionDate), except for a session
 * the window cuts, whose minutes within it are read. The scan gives one cell per print, with its
 * minute.
 */
export async function readFlowCells(redis: Redis, prefix: string, q: FlowQuery, minutes: boolean, onPath?: (p: FlowPath) => void): Promise<FlowCell[]> {
  const path = flowPath(q);
  onPath?.(path);
  const out: FlowCell[] = [];
  if (path === 'scan') {
    await scanPrints(redis, prefix, q, q.predicate, (row) => out.push(cellOfPrint(row, true)));
    return out;
  }
  if (q.cubeVersion === null) return out;
  // A session the window holds whole is answered by its session cells; one it cuts, by minutes.
  const minuteSessions = new Set(minutes ? q.sessions : q.sessions.filter((d) => q.window !== null && !holdsSession(q.window, d)));
  const level = cellLevel(q, minuteSessions.size > 0);
  const version = q.cubeVersion;
  // A per-partition level (the underlyings of a partition together) reads one hash per partition
  // and session, however many underlyings; a per-underlying level, one per underlying.
  const targets = level.perTicker
    ? await tickerTargets(redis, prefix, version, q)
    : partitions().flatMap((p) => q.sessions.map((d) => [keysOf(prefix, version, p), d, '*'] as [FlowAggregateKeys, string, string]));
  const res = await readCube(
    redis,
    prefix,
    version,
    targets.map(([k, d, t]) => ({ p: k.p.partition, d, key: level.key(k, d, t, minuteSessions.has(d)), op: 'hash' })),
  );
  targets.forEach(([, d, t], i) => {
    const got = res[i] as Record<string, Buffer> | ReadonlyMap<string, string>;
    const byMinute = minuteSessions.has(d);
    const visit = (field: string, value: string) => {
      const c = level.parse(t, field, value, byMinute);
      if (c.minute !== null && !inWindow(q.window, c.minute)) return;
      if (!byMinute) c.sessionDate = d;
      if (q.predicate(c as unknown as OrderFlowPrintRow)) out.push(c);
    };
    // A level a warm session derives comes as its entries, already folded (tiers.ts).
    if (got instanceof Map) for (const [field, value] of got as ReadonlyMap<string, string>) visit(field, value);
    else {
      const hash = got as Record<string, Buffer>;
      for (const block in hash) unpackBlock(block, hash[block], level.valueSep, visit);
    }
  });
  return out;
}

/** Scans the prints view for rows matching `predicate` within the query's sessions and window. */
async function scanPrints(redis: Redis, prefix: string, q: FlowQuery, predicate: (r: OrderFlowPrintRow) => boolean, visit: (r: OrderFlowPrintRow) => void) {
  if (q.printsVersion === null || !q.sessions.length) return;
  const table = orderFlowTableQuery<OrderFlowPrintRow>({
    view: ORDER_FLOW_PRINTS_VIEW,
    version: q.printsVersion,
    sessions: [...q.sessions],
    window: q.window,
    predicate,
    hints: q.hints,
  });
  await scanTable(redis, prefix, table, visit);
}

/**
 * The last underlying price of `ticker` per minute start within the query's sessions and window,
 * over every print of the ticker (option filters do not apply: it is the underlying's price).
 * With `wholeSessions` (day and week buckets), a session the window holds whole gives only its
 * last price, under its minute: the last of a bucket of whole sessions is among those.
 */
export async function readLastPrices(redis: Redis, prefix: string, q: FlowQuery, ticker: string, wholeSessions = false): Promise<Map<number, LastPrice>> {
  const out = new Map<number, LastPrice>();
  if (!cubeWindow(q.window)) {
    // The window cuts a minute: the ticker's prints within it decide.
    const rows: FlowQuery = { ...q, hints: { tickers: [ticker] } };
    await scanPrints(
      redis,
      prefix,
      rows,
      (r) => r.ticker === ticker,
      (r) => out.set(minuteOf(r.tradeTime), laterOf(out.get(minuteOf(r.tradeTime)) ?? null, { time: r.tradeTime, rowKey: r.rowKey, price: r.stockPrice })),
    );
    return out;
  }
  if (q.cubeVersion === null) return out;
  const k = keysOf(prefix, q.cubeVersion, partitionOf(ticker, MARKET_PARTITIONS));
  const whole = (d: string) => wholeSessions && (q.window === null || holdsSession(q.window, d));
  const p = k.p.partition;
  const res = await readCube(
    redis,
    prefix,
    q.cubeVersion,
    q.sessions.map((d): CubeRead =>
      whole(d) ? { p, d, key: k.sessionLastPrices(d), op: 'field', field: ticker } : { p, d, key: k.underlying(d, ticker), op: 'hash' },
    ),
  );
  q.sessions.forEach((d, i) => {
    const got = res[i];
    if (whole(d)) {
      if (got !== null) {
        const last = decodeLast(String(got));
        out.set(minuteOf(last.time), last);
      }
      return;
    }
    for (const [name, block] of Object.entries(got as Record<string, Buffer>)) {
      unpackBlock(name, block, PACKING.lastPrices.valueSep, (m, v) => {
        const ms = Number(m) * MINUTE_MS;
        if (inWindow(q.window, ms)) out.set(ms, decodeLast(v));
      });
    }
  });
  return out;
}

/** A contract, as option-price-over-time names it: an OSI symbol, or its four parts. */
export type ContractRef = { osi: string } | { ticker: string; expirationDate: string; contractType: 'CALL' | 'PUT'; strikePrice: number };

/** The contract's 1-minute bars (minute start, bar) within the query's sessions and window. */
export async function readBars(redis: Redis, prefix: string, q: FlowQuery, ref: ContractRef, onPath?: (p: FlowPath) => void): Promise<[number, Bar][]> {
  const matches = (r: OrderFlowPrintRow) =>
    'osi' in ref
      ? r.osi === ref.osi
      : r.ticker === ref.ticker && r.expirationDate === ref.expirationDate && r.contractType === ref.contractType && r.strikePrice === ref.strikePrice;
  if (!cubeWindow(q.window)) {
    onPath?.('scan');
    const out: [number, Bar][] = [];
    const hints: OrderFlowHints = 'osi' in ref ? { osi: ref.osi } : { tickers: [ref.ticker] };
    await scanPrints(redis, prefix, { ...q, hints }, matches, (r) => out.push([r.tradeTime, barOfPrint(r)]));
    return out;
  }
  onPath?.('cube');
  if (q.cubeVersion === null) return [];
  const version = q.cubeVersion;
  // Which partition and contract key: by the four parts directly, or through the OSI index.
  const found: [FlowAggregateKeys, string, string][] = [];
  if ('osi' in ref) {
    const asked: [FlowAggregateKeys, string][] = [];
    for (const p of partitions()) for (const d of q.sessions) asked.push([keysOf(prefix, version, p), d]);
    const res = await readCube(
      redis,
      prefix,
      version,
      asked.map(([k, d]) => ({ p: k.p.partition, d, key: k.osis(d), op: 'field', field: osiBlock(ref.osi) })),
    );
    const field = osiField(ref.osi);
    asked.forEach(([k, d], i) => {
      const block = res[i] as Buffer | null;
      if (block === null) return;
      unpackBlockWhere('', block, OSI_PACKING.valueSep, field, (f, contract) => {
        if (f === field) found.push([k, d, contract]);
      });
    });
  } else {
    const k = keysOf(prefix, version, partitionOf(ref.ticker, MARKET_PARTITIONS));
    const contract = contractId(ref.ticker, ref.expirationDate, ref.contractType, ref.strikePrice);
    for (const d of q.sessions) found.push([k, d, contract]);
  }
  // A contract's bars are in its underlying's hash, in the block of its expiration, under fields
  // starting with its type and strike (keys.ts PACKING.bars).
  const reads: CubeRead[] = [];
  const prefixes: string[] = [];
  for (const [k, d, contract] of found) {
    const [ticker, expiration, cp, strike] = contract.split('|');
    reads.push({ p: k.p.partition, d, key: k.bars(d, ticker), op: 'field', field: expiration });
    prefixes.push(`${cp}|${strike}`);
  }
  const out: [number, Bar][] = [];
  (await readCube(redis, prefix, version, reads)).forEach((block, i) => {
    if (block === null) return;
    unpackBlockWhere('', block as Buffer, PACKING.bars.valueSep, prefixes[i], (field, v) => {
      const ms = Number(field.slice(field.lastIndexOf('|') + 1)) * MINUTE_MS;
      if (inWindow(q.window, ms)) out.push([ms, decodeBar(v)]);
    });
  });
  return out;
}

/**
 * The expirations of `ticker` with a print carrying an implied volatility in session `d`,
 * ascending (volatility-drift's default expiration is the first).
 */
export async function readAtmExpirations(redis: Redis, prefix: string, version: number, d: string, ticker: string): Promise<string[]> {
  const k = keysOf(prefix, version, partitionOf(ticker, MARKET_PARTITIONS));
  const [got] = await readCube(redis, prefix, version, [{ p: k.p.partition, d, key: k.atmExpirations(d, ticker), op: 'members' }]);
  return got as string[];
}

/** Minute start (epoch-ms) -> the print of that minute and expiration nearest the money (cells.ts nearerAtmOf). */
export async function readAtmIvs(redis: Redis, prefix: string, version: number, d: string, ticker: string, expiration: string): Promise<Map<number, AtmPrint>> {
  const k = keysOf(prefix, version, partitionOf(ticker, MARKET_PARTITIONS));
  const [hash] = await readCube(redis, prefix, version, [{ p: k.p.partition, d, key: k.atmIvs(d, ticker, expiration), op: 'hash' }]);
  const out = new Map<number, AtmPrint>();
  for (const [m, v] of Object.entries(hash as Record<string, Buffer>)) out.set(Number(m) * MINUTE_MS, decodeAtm(v.toString()));
  return out;
}
