import fs from 'fs';
import path from 'path';
import { ENDPOINTS } from '../api/endpoints';
import { V1 } from '../api/request/endpoint';
import { loadConfig } from '../services/config';
import { defaultDataDir } from '../services/stack/paths';
import { previousTradingDay, sessionDateOf } from '../services/domain/calendar';

/**
 * `npm run smoke` — one request per endpoint against the running `npm start` (its port and the
 * dev key in the data folder): each endpoint's first documented example, moved onto the running
 * data (the latest session, a ticker with prints, one of its expirations and contracts). Prints
 * the status and whether the answer holds data; exits non-zero when an endpoint answers without.
 * `--wait S` retries for up to S seconds (after a start, until the views hold data).
 * `--sessions-back N` asks every endpoint that takes a `sessionDate` about the session N trading
 * sessions before the latest with prints instead (a warm session of the tapes when N >= 3).
 */

const TICKER = process.env.SMOKE_TICKER ?? 'SPY';
const waitAt = process.argv.indexOf('--wait');
const waitS = waitAt >= 0 ? Number(process.argv[waitAt + 1] ?? 0) : 0;
const backAt = process.argv.indexOf('--sessions-back');
const sessionsBack = backAt >= 0 ? Number(process.argv[backAt + 1] ?? 0) : 0;

const dataDir = process.env.MDQ_DATA_DIR || defaultDataDir();
const base = `http://127.0.0.1:${loadConfig().port}${V1}`;
const key = fs.readFileSync(path.join(dataDir, 'dev-api-key'), 'utf8').trim();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of thirty shapes, probed loosely
type Json = any;

async function post(p: string, body: unknown): Promise<{ status: number; json: Json }> {
  for (;;) {
    const res = await fetch(base + p, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    // The dev key has the default quota: wait a refusal out rather than report it.
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('Retry-After') ?? 1)));
      continue;
    }
    return { status: res.status, json: await res.json().catch(() => null) };
  }
}

const hasData = (json: Json): boolean => {
  const d = json?.data;
  if (Array.isArray(d)) return d.length > 0;
  if (d && typeof d === 'object') return Object.keys(d).length > 0;
  return json !== null && typeof json === 'object' && Object.keys(json).length > 0 && d === undefined;
};

/** What the running data offers: an expiration and a contract of TICKER with prints. */
async function landmarks(): Promise<{ expiration: string; osi: string; contract: Record<string, unknown>; sessionDate?: string } | null> {
  let sessionDate: string | undefined;
  if (sessionsBack > 0) {
    const time = (await post('/options/tool/order-flow/unconsolidated', { filter: { ticker: TICKER }, size: 1 })).json?.data?.[0]?.tradeTime;
    if (typeof time !== 'number') return null;
    sessionDate = sessionDateOf(time);
    for (let i = 0; i < sessionsBack; i++) sessionDate = previousTradingDay(sessionDate!);
  }
  const tape = await post('/options/tool/order-flow/unconsolidated', { filter: { ticker: TICKER }, size: 1, ...(sessionDate ? { sessionDate } : {}) });
  const row = tape.json?.data?.[0];
  if (!row) return null;
  // An expiration with open interest (max-pain needs one), else the print's.
  const oi = await post('/options/tool/open-interest-by-expiration', { filter: { ticker: TICKER }, ...(sessionDate ? { sessionDate } : {}) });
  const withOi = Object.entries((oi.json?.data ?? {}) as Record<string, { callOpenInterest: number; putOpenInterest: number }>).find(
    ([, t]) => t.callOpenInterest + t.putOpenInterest > 0,
  );
  return {
    sessionDate,
    expiration: withOi?.[0] ?? row.expirationDate,
    osi: row.osi,
    contract: { ticker: TICKER, expirationDate: row.expirationDate, strikePrice: row.strikePrice, contractType: row.contractType },
  };
}

/** An example moved onto the running data: default time selection (or --sessions-back), TICKER, the landmarks. */
function adapt(request: Record<string, unknown>, l: NonNullable<Awaited<ReturnType<typeof landmarks>>>, takesSession: boolean): Record<string, unknown> {
  const { sessionDate: _s, snapshotTime: _t, timeRange: _r, ...rest } = request;
  const out: Record<string, unknown> = { ...rest };
  if (l.sessionDate && takesSession) out.sessionDate = l.sessionDate;
  if (out.sessionDateRange) out.sessionDateRange = { startDate: new Date(Date.now() - 45 * 86_400_000).toISOString().slice(0, 10) };
  const filter = { ...((out.filter as Record<string, unknown>) ?? {}) };
  if (filter.osi) filter.osi = l.osi;
  if (filter.ticker || filter.tickers) {
    delete filter.tickers;
    Object.assign(filter, filter.contractType ? l.contract : { ticker: TICKER });
  }
  for (const k of ['expirationDate', 'expirationDates']) if (filter[k] && !filter.contractType) filter[k] = l.expiration;
  for (const k of ['strikePrice', 'strikePrices', 'minStrikePrice', 'maxStrikePrice', 'strikePriceRange']) if (!filter.contractType) delete filter[k];
  delete out.minStrikePrice;
  delete out.maxStrikePrice;
  if (Object.keys(filter).length || out.filter) out.filter = filter;
  return out;
}

async function main(): Promise<void> {
  const deadline = Date.now() + waitS * 1000;
  const results = new Map<string, { status: number; data: boolean; detail?: string }>();
  for (;;) {
    const l = await landmarks().catch(() => null);
    if (l) {
      // Each round asks again only the endpoints that have not answered with data yet.
      for (const def of ENDPOINTS) {
        if (results.get(def.path)?.data) continue;
        const takesSession = 'sessionDate' in ((def.requestSchema as { properties?: object }).properties ?? {});
        if (l.sessionDate && !takesSession) continue;
        const res = await post(def.path, adapt(Object.values(def.examples)[0]!.request, l, takesSession));
        results.set(def.path, { status: res.status, data: res.status === 200 && hasData(res.json), detail: res.status === 200 ? undefined : res.json?.detail });
      }
    }
    const asked = ENDPOINTS.filter((d) => !l?.sessionDate || 'sessionDate' in ((d.requestSchema as { properties?: object }).properties ?? {}));
    const missing = asked.filter((d) => !results.get(d.path)?.data);
    if (!missing.length || Date.now() >= deadline) {
      if (!l) console.log(`no print of ${TICKER} yet`);
      if (l?.sessionDate) console.log(`session ${l.sessionDate}, ${sessionsBack} sessions back: the ${asked.length} endpoints that take a sessionDate`);
      for (const d of asked) {
        const r = results.get(d.path);
        console.log(`${r?.data ? 'data ' : 'EMPTY'} ${r?.status ?? '-'} ${d.path}${r?.detail ? `  (${r.detail})` : ''}`);
      }
      console.log(`${asked.length - missing.length} of ${asked.length} endpoints answered with data`);
      process.exit(missing.length ? 1 : 0);
    }
    await new Promise((r) => setTimeout(r, 5_000));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
