import { MARKET_PARTITIONS } from '../../../schemas/catalog';
import { partitionOf } from '../../../services/kafka/partition';
import { PartitionKeys } from '../../../services/views/keys';
import { OPEN_INTEREST_VIEW, decodeChain, decodeSessionSummary, oiKeys, type ChainStrike, type SessionSummary } from '../../../services/views/open-interest';
import type { EndpointContext } from '../../request/endpoint';
import { viewStamp } from '../../tables/view-state';
import type { TimeSelection } from '../../request/time-selectors';

/**
 * Reads of the open-interest view's compact stores (services/views/open-interest.ts) for the
 * aggregation endpoints: everything of a ticker lives in its partition.
 */

/** The keys of the ticker's partition in the served version, or null before the view is built. */
export async function tickerKeys(ctx: EndpointContext, ticker: string): Promise<PartitionKeys | null> {
  const version = await ctx.views.version(OPEN_INTEREST_VIEW);
  return version === null ? null : new PartitionKeys(ctx.keyPrefix, OPEN_INTEREST_VIEW, version, partitionOf(ticker, MARKET_PARTITIONS));
}

/** Per session with open interest (ascending): the ticker's call and put totals. */
export async function readTotals(ctx: EndpointContext, k: PartitionKeys, ticker: string): Promise<Map<string, { call: number; put: number }>> {
  const [[e1, calls], [e2, puts]] = (await ctx.redis.pipeline().hgetall(oiKeys.calls(k, ticker)).hgetall(oiKeys.puts(k, ticker)).exec())! as [
    [Error | null, Record<string, string>],
    [Error | null, Record<string, string>],
  ];
  if (e1 || e2) throw e1 ?? e2;
  const sessions = [...new Set([...Object.keys(calls), ...Object.keys(puts)])].sort();
  return new Map(sessions.map((s) => [s, { call: Number(calls[s] ?? 0), put: Number(puts[s] ?? 0) }]));
}

/** The newest session with open interest for the ticker, or null. */
export async function latestSession(ctx: EndpointContext, k: PartitionKeys, ticker: string): Promise<string | null> {
  const sessions = await ctx.redis.hkeys(oiKeys.calls(k, ticker));
  return sessions.length ? sessions.reduce((a, b) => (a > b ? a : b)) : null;
}

/** Every session's chain of one expiration (session -> strikes ascending). */
export async function readExpirationChains(ctx: EndpointContext, k: PartitionKeys, ticker: string, expiration: string): Promise<Map<string, ChainStrike[]>> {
  const stored = await ctx.redis.hgetall(oiKeys.chain(k, ticker, expiration));
  return new Map(Object.entries(stored).map(([s, v]) => [s, decodeChain(v)]));
}

/** Every chain of the ticker, all expirations and sessions (the strike-only narrowing of open-interest-over-time). */
export async function readAllChains(ctx: EndpointContext, k: PartitionKeys, ticker: string): Promise<Map<string, ChainStrike[]>[]> {
  const expirations = await ctx.redis.zrange(oiKeys.expirations(k, ticker), 0, -1);
  const keys = expirations.map((e) => oiKeys.chain(k, ticker, e));
  if (!keys.length) return [];
  const pipe = ctx.redis.pipeline();
  for (const key of keys) pipe.hgetall(key);
  return (await pipe.exec())!.map(([err, stored]) => {
    if (err) throw err;
    return new Map(Object.entries(stored as Record<string, string>).map(([s, v]) => [s, decodeChain(v)]));
  });
}

/** The response-cache stamp of the open-interest view: its version and every partition's applied offsets. */
export async function openInterestStamp(ctx: EndpointContext): Promise<string | null> {
  const version = await ctx.views.version(OPEN_INTEREST_VIEW);
  return version === null ? null : viewStamp(ctx.redis, ctx.keyPrefix, OPEN_INTEREST_VIEW, version);
}

/** One session's chain of one expiration and its stock price, in one round trip. */
export async function readChainAndPrice(
  ctx: EndpointContext,
  k: PartitionKeys,
  ticker: string,
  expiration: string,
  session: string,
): Promise<{ chain: ChainStrike[] | null; price: number | null }> {
  const res = (await ctx.redis
    .pipeline()
    .hget(oiKeys.chain(k, ticker, expiration), session)
    .hget(oiKeys.close(k, ticker), session)
    .hget(oiKeys.last(k, ticker), session)
    .exec())!;
  for (const [err] of res) if (err) throw err;
  const [chain, close, last] = res.map(([, v]) => v as string | null);
  const price = close ?? last;
  return { chain: chain === null ? null : decodeChain(chain), price: price === null ? null : Number(price) };
}

/** The session an OI-lagged request reads: the one named, or else the ticker's newest with open interest (null when none). */
export async function oiSession(ctx: EndpointContext, k: PartitionKeys | null, ticker: string, selection: TimeSelection): Promise<string | null> {
  if (selection.kind === 'session') return selection.sessionDate;
  return k && latestSession(ctx, k, ticker);
}

/**
 * One session's stored answers of the ticker, in one field read: per expiration (ascending) its
 * totals and max-pain strike, per strike (ascending) its totals over every expiration.
 */
export async function readSessionSummary(ctx: EndpointContext, k: PartitionKeys, ticker: string, session: string): Promise<SessionSummary> {
  return decodeSessionSummary(await ctx.redis.hget(oiKeys.summaries(k, ticker), session));
}

/** One session's chains of these expirations (each strikes ascending; an expiration without a chain is left out). */
export async function readSessionChains(
  ctx: EndpointContext,
  k: PartitionKeys,
  ticker: string,
  session: string,
  expirations: readonly string[],
): Promise<Map<string, ChainStrike[]>> {
  if (!expirations.length) return new Map();
  const pipe = ctx.redis.pipeline();
  for (const e of expirations) pipe.hget(oiKeys.chain(k, ticker, e), session);
  const out = new Map<string, ChainStrike[]>();
  (await pipe.exec())!.forEach(([err, stored], i) => {
    if (err) throw err;
    if (stored !== null) out.set(expirations[i], decodeChain(stored as string));
  });
  return out;
}
