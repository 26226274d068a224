import type { RedisClient as Redis } from '../../services/redis/client';
import { topicFor } from '../../schemas/catalog';
import type { PartitionKeys } from '../../services/views/keys';
import {
  CHANGE_SESSIONS,
  OI_CHANGE_LAYOUT,
  OPEN_INTEREST_FORMAT,
  OPEN_INTEREST_VIEW,
  changeRow,
  compactOsi,
  decodeChain,
  decodeSessionSummary,
  encodeChain,
  encodeSessionSummary,
  expirationSummary,
  encodeChangeRow,
  expandOsi,
  oiKeys,
  type ChainStrike,
  type ExpirationSummary,
} from '../../services/views/open-interest';
import { TableKeys, rowRemovals, rowWrites } from '../../services/views/table';
import type { RedisOp } from '../runtime/atomic-apply';
import type { Projection, SourceEvent } from '../runtime/projection';

interface OiEvent {
  osi: string;
  ticker: string;
  expirationDate: string;
  strikePrice: number;
  contractType: 'CALL' | 'PUT';
  sessionDate: string;
  openInterest: number | bigint;
  time: number | bigint;
}

interface PriceEvent {
  ticker: string;
  sessionDate: string;
  price: number;
  kind: 'OPEN' | 'TICK' | 'CLOSE';
}

/** A contract's open interest in one session, as kept in `c:<S>`. */
interface Held {
  oi: number;
  time: number;
  ticker: string;
}

const OI_TOPIC = topicFor('open-interest')!;
const PRICE_TOPIC = topicFor('underlying-price')!;

/** Ascending string order (session dates, keys): never locale-dependent. */
const asc = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Open interest per contract and session (services/views/open-interest.ts), from
 * market.open-interest, and the session prices max-pain needs, from market.underlying-prices.
 *
 * Sessions reach a partition in any order (history is backfilled newest first, the live session
 * may come before it), so a change row is a function of two stored sessions: a session's rows are
 * recomputed whenever it or its predecessor gains open interest, and only rows whose stored form
 * changed are rewritten. The view therefore depends on the set of events, not on their order.
 */
export const openInterestProjection: Projection = {
  view: OPEN_INTEREST_VIEW,
  format: OPEN_INTEREST_FORMAT,
  topics: [OI_TOPIC, PRICE_TOPIC],

  async project(events: SourceEvent[], keys: PartitionKeys, redis: Redis): Promise<RedisOp[]> {
    const ops: RedisOp[] = [];
    projectPrices(events, keys, ops);
    const oi = events.filter((e) => e.topic.endsWith(OI_TOPIC.name) && e.value !== null).map((e) => e.value as unknown as OiEvent);
    if (oi.length) await projectOpenInterest(oi, keys, redis, ops);
    return ops;
  },
};

/** The latest price per ticker and session: the official close, or else the latest open or tick. */
function projectPrices(events: SourceEvent[], keys: PartitionKeys, ops: RedisOp[]): void {
  const close = new Map<string, [string, string, number]>();
  const last = new Map<string, [string, string, number]>();
  for (const e of events) {
    if (!e.topic.endsWith(PRICE_TOPIC.name) || e.value === null) continue;
    const p = e.value as unknown as PriceEvent;
    (p.kind === 'CLOSE' ? close : last).set(`${p.ticker}|${p.sessionDate}`, [p.ticker, p.sessionDate, p.price]);
  }
  for (const [t, s, price] of close.values()) ops.push(['HSET', oiKeys.close(keys, t), s, String(price)]);
  for (const [t, s, price] of last.values()) ops.push(['HSET', oiKeys.last(keys, t), s, String(price)]);
}

async function projectOpenInterest(events: OiEvent[], keys: PartitionKeys, redis: Redis, ops: RedisOp[]): Promise<void> {
  const k = new TableKeys(keys);
  // This chunk's open interest by session, then by compact osi (a later event of a contract wins).
  const bySession = new Map<string, Map<string, Held & { e: OiEvent }>>();
  for (const e of events) {
    const m = bySession.get(e.sessionDate) ?? new Map<string, Held & { e: OiEvent }>();
    bySession.set(e.sessionDate, m);
    m.set(compactOsi(e.osi), { oi: Number(e.openInterest), time: Number(e.time), ticker: e.ticker, e });
  }

  const before = await redis.zrange(oiKeys.sessions(keys), 0, -1);
  const known = new Set(before);
  const all = [...new Set([...before, ...bySession.keys()])].sort(asc);
  const rowsKept = new Set(all.slice(-CHANGE_SESSIONS));
  const contractsKept = new Set(all.slice(-(CHANGE_SESSIONS + 1)));
  const oldRowsKept = new Set(before.slice(-CHANGE_SESSIONS));
  const oldContractsKept = new Set(before.slice(-(CHANGE_SESSIONS + 1)));
  for (const s of [...bySession.keys()].sort(asc)) if (!known.has(s)) ops.push(['ZADD', oiKeys.sessions(keys), '0', s]);

  // Sessions pushed out of the windows by newer ones lose their contracts and change rows.
  for (const s of oldContractsKept) if (!contractsKept.has(s)) ops.push(['DEL', oiKeys.contracts(keys, s)]);
  const dropped = [...oldRowsKept].filter((s) => !rowsKept.has(s));
  if (dropped.length) await dropSegments(dropped, k, redis, ops);

  await writeChains(bySession, keys, redis, ops);

  for (const [s, m] of [...bySession].sort(([a], [b]) => asc(a, b))) {
    if (!contractsKept.has(s)) continue;
    const args: string[] = [];
    for (const [osi, h] of [...m].sort(([a], [b]) => asc(a, b))) args.push(osi, `${h.oi},${h.time},${h.ticker}`);
    ops.push(['HSET', oiKeys.contracts(keys, s), ...args]);
  }

  // Sessions whose change rows may differ: those in the chunk, and the session after each.
  const affected = new Set<string>();
  for (const s of bySession.keys()) {
    if (rowsKept.has(s)) affected.add(s);
    const next = all[all.indexOf(s) + 1];
    if (next !== undefined && rowsKept.has(next)) affected.add(next);
  }
  if (!affected.size) return;
  const sessions = [...affected].sort(asc);
  const predecessors = sessions.map((s) => all[all.indexOf(s) - 1] ?? null);
  const toRead = [...new Set([...sessions, ...predecessors.filter((p): p is string => p !== null)])];
  const pipe = redis.pipeline();
  for (const s of toRead) pipe.hgetall(oiKeys.contracts(keys, s));
  for (const s of sessions) pipe.hgetall(k.rows(s));
  const res = (await pipe.exec())!;
  for (const [err] of res) if (err) throw err;
  const held = new Map<string, Map<string, Held>>();
  toRead.forEach((s, i) => held.set(s, mergeHeld(res[i][1] as Record<string, string>, bySession.get(s))));

  sessions.forEach((s, i) => {
    const stored = res[toRead.length + i][1] as Record<string, string>;
    const current = held.get(s)!;
    const prev = predecessors[i] === null ? new Map<string, Held>() : held.get(predecessors[i]!)!;
    for (const osi of [...current.keys()].sort(asc)) {
      const c = current.get(osi)!;
      const row = changeRow({ osi: expandOsi(osi)!, ticker: c.ticker, sessionDate: s, createdTime: c.time }, prev.get(osi)?.oi ?? 0, c.oi);
      const encoded = encodeChangeRow(row);
      const old = stored[osi];
      if (old === encoded) continue;
      if (old !== undefined) ops.push(...rowRemovals(OI_CHANGE_LAYOUT, k, OI_CHANGE_LAYOUT.decode(old, osi, s)));
      ops.push(...rowWrites(OI_CHANGE_LAYOUT, k, row));
    }
  });
}

function mergeHeld(stored: Record<string, string>, chunk: Map<string, Held> | undefined): Map<string, Held> {
  const out = new Map<string, Held>();
  for (const [osi, v] of Object.entries(stored)) {
    const [oi, time, ticker] = v.split(',');
    out.set(osi, { oi: Number(oi), time: Number(time), ticker });
  }
  if (chunk) for (const [osi, h] of chunk) out.set(osi, { oi: h.oi, time: h.time, ticker: h.ticker });
  return out;
}

/** Deletes every key of the change rows of these sessions (their ticker indexes found from the rows). */
async function dropSegments(sessions: string[], k: TableKeys, redis: Redis, ops: RedisOp[]): Promise<void> {
  const pipe = redis.pipeline();
  for (const s of sessions) pipe.hgetall(k.rows(s));
  const res = (await pipe.exec())!;
  sessions.forEach((s, i) => {
    const [err, rows] = res[i];
    if (err) throw err;
    const tickers = new Set<string>();
    for (const [rowKey, v] of Object.entries(rows as Record<string, string>)) tickers.add(OI_CHANGE_LAYOUT.decode(v, rowKey, s).ticker);
    ops.push(['DEL', k.rows(s)]);
    for (const sort of OI_CHANGE_LAYOUT.sorts) ops.push(['DEL', k.sorted(s, sort.suffix)]);
    for (const t of [...tickers].sort(asc)) ops.push(['DEL', k.index(s, 'tk', t)]);
    ops.push(['ZREM', k.segments, s]);
  });
}

/**
 * Every session's chain per ticker and expiration, the ticker's call and put totals, and the
 * session's answers at the resolutions requests read: per expiration its totals and max-pain strike
 * and per strike its totals over every expiration (`ss`, one field per ticker and session). A chain is read, merged with the
 * chunk's contracts and written back; the totals move by the difference, so a contract published
 * twice for a session is counted once. An expiration's summary is a function of its chain alone
 * and the strike totals are sums of the chains, so the view still depends on the set of events only.
 */
async function writeChains(bySession: Map<string, Map<string, Held & { e: OiEvent }>>, keys: PartitionKeys, redis: Redis, ops: RedisOp[]): Promise<void> {
  const groups = new Map<string, { ticker: string; exp: string; session: string; events: OiEvent[] }>();
  for (const [s, m] of bySession) {
    for (const { e } of m.values()) {
      const id = `${e.ticker}|${e.expirationDate}|${s}`;
      const g = groups.get(id) ?? { ticker: e.ticker, exp: e.expirationDate, session: s, events: [] };
      groups.set(id, g);
      g.events.push(e);
    }
  }
  const list = [...groups.entries()].sort(([a], [b]) => asc(a, b)).map(([, g]) => g);
  const sessionsOf = [...new Map(list.map((g) => [`${g.ticker}|${g.session}`, { ticker: g.ticker, session: g.session }])).entries()].sort(([a], [b]) =>
    asc(a, b),
  );
  const pipe = redis.pipeline();
  for (const g of list) pipe.hget(oiKeys.chain(keys, g.ticker, g.exp), g.session);
  for (const [, t] of sessionsOf) pipe.hget(oiKeys.summaries(keys, t.ticker), t.session);
  const res = (await pipe.exec())!;
  for (const [err] of res) if (err) throw err;
  // Per ticker and session: the stored expiration summaries and strike totals, updated below.
  const perSession = new Map<
    string,
    { ticker: string; session: string; call: number; put: number; exps: Map<string, ExpirationSummary>; strikes: Map<number, ChainStrike> }
  >();
  sessionsOf.forEach(([id, t], i) => {
    const stored = decodeSessionSummary(res[list.length + i][1] as string | null);
    perSession.set(id, {
      ...t,
      call: 0,
      put: 0,
      exps: new Map(stored.expirations.map((e) => [e.expiration, e])),
      strikes: new Map(stored.strikes.map((c) => [c.strike, c])),
    });
  });
  list.forEach((g, i) => {
    const byStrike = new Map<number, ChainStrike>(decodeChain(res[i][1] as string | null).map((c) => [c.strike, c]));
    const t = perSession.get(`${g.ticker}|${g.session}`)!;
    for (const e of g.events) {
      const cell = byStrike.get(e.strikePrice) ?? { strike: e.strikePrice, call: 0, put: 0 };
      byStrike.set(e.strikePrice, cell);
      const total = t.strikes.get(e.strikePrice) ?? { strike: e.strikePrice, call: 0, put: 0 };
      t.strikes.set(e.strikePrice, total);
      const oi = Number(e.openInterest);
      if (e.contractType === 'CALL') {
        t.call += oi - cell.call;
        total.call += oi - cell.call;
        cell.call = oi;
      } else {
        t.put += oi - cell.put;
        total.put += oi - cell.put;
        cell.put = oi;
      }
    }
    const chain = [...byStrike.values()];
    t.exps.set(g.exp, expirationSummary(g.exp, chain));
    ops.push(['HSET', oiKeys.chain(keys, g.ticker, g.exp), g.session, encodeChain(chain)]);
    ops.push(['ZADD', oiKeys.expirations(keys, g.ticker), '0', g.exp]);
  });
  for (const t of perSession.values()) {
    // Also by 0: the field marks a session with data even when every contract's open interest is 0.
    ops.push(['HINCRBY', oiKeys.calls(keys, t.ticker), t.session, String(t.call)]);
    ops.push(['HINCRBY', oiKeys.puts(keys, t.ticker), t.session, String(t.put)]);
    ops.push(['HSET', oiKeys.summaries(keys, t.ticker), t.session, encodeSessionSummary({ expirations: t.exps.values(), strikes: t.strikes.values() })]);
  }
}
