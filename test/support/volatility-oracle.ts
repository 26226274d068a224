import type { SimEvent } from '../../ingest/simulator/events';
import { sessionDateOf, toDayNumber } from '../../services/domain/calendar';
import { moneynessOf } from '../../services/domain/order-flow';
import { parseOsi } from '../../services/domain/osi';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import { bsmGreeks } from '../../services/domain/pricing';
import { surfaceGreeks, yearsToExpiry, type GreekMode, type RepresentationMode, type SurfaceGreeks } from '../../services/domain/volatility';

/**
 * Brute-force answers of the volatility endpoints from the source events themselves: every price
 * is kept (not only the whole-minute ones the view stores), every snapshot is priced from
 * scratch, nothing is indexed. IV and greeks come from the shared pricing code (their own
 * correctness is unit-tested); selection, spot, filters, exposure and windows are written out
 * here independently of the endpoints.
 */

export interface OracleLeg {
  osi: string;
  right: 'CALL' | 'PUT';
  strike: number;
  expiration: string;
  bid: number;
  ask: number;
  greeks: SurfaceGreeks | null;
}

export type Selection = { sessionDate: string } | { before: number } | 'latest';

const KIND_RANK: Record<string, number> = { OPEN: 0, TICK: 1, CLOSE: 2 };

export class VolatilityOracle {
  private readonly prices = new Map<string, { time: number; price: number; kind: string }[]>();
  private readonly quotes = new Map<string, Map<number, Map<string, { bid: number; ask: number }>>>();
  private readonly oi = new Map<string, number>();

  constructor(events: readonly SimEvent[]) {
    for (const e of events) {
      const d = e.data as Record<string, any>;
      if (e.type === 'underlying-price') {
        const list = this.prices.get(d.ticker) ?? [];
        list.push({ time: Number(d.time), price: d.price, kind: d.kind });
        this.prices.set(d.ticker, list);
      } else if (e.type === 'option-quote') {
        const byTime = this.quotes.get(d.ticker) ?? new Map();
        this.quotes.set(d.ticker, byTime);
        const snap = byTime.get(Number(d.time)) ?? new Map();
        byTime.set(Number(d.time), snap);
        snap.set(d.osi, { bid: d.bidPrice, ask: d.askPrice });
      } else if (e.type === 'open-interest') this.oi.set(`${d.sessionDate}|${d.osi}`, Number(d.openInterest));
    }
  }

  snapshots(ticker: string): number[] {
    return [...(this.quotes.get(ticker)?.keys() ?? [])].sort((a, b) => a - b);
  }

  snapshotFor(ticker: string, sel: Selection): number | null {
    const all = this.snapshots(ticker);
    const pick = sel === 'latest' ? all : 'sessionDate' in sel ? all.filter((t) => sessionDateOf(t) === sel.sessionDate) : all.filter((t) => t < sel.before);
    return pick.length ? pick[pick.length - 1] : null;
  }

  /** The last price at or before the instant, in its New York date; the close over a tick over the open at one instant. */
  spotAt(ticker: string, ms: number): number | null {
    const date = sessionDateOf(ms);
    let best: { time: number; price: number; kind: string } | null = null;
    for (const p of this.prices.get(ticker) ?? []) {
      if (p.time > ms || sessionDateOf(p.time) !== date) continue;
      if (!best || p.time > best.time || (p.time === best.time && KIND_RANK[p.kind] > KIND_RANK[best.kind])) best = p;
    }
    return best ? best.price : null;
  }

  surface(ticker: string, ms: number): { spot: number | null; legs: OracleLeg[] } {
    const spot = this.spotAt(ticker, ms);
    const legs: OracleLeg[] = [];
    for (const [osi, q] of this.quotes.get(ticker)?.get(ms) ?? []) {
      const p = parseOsi(osi)!;
      const greeks =
        spot === null
          ? null
          : surfaceGreeks(
              { right: p.right, strike: p.strike, expiration: p.expiration, bid: q.bid, ask: q.ask },
              spot,
              ms,
              RISK_FREE_RATE,
              dividendYield(ticker),
            );
      legs.push({ osi, right: p.right, strike: p.strike, expiration: p.expiration, bid: q.bid, ask: q.ask, greeks });
    }
    return { spot, legs };
  }

  openInterest(date: string, osi: string): number | undefined {
    return this.oi.get(`${date}|${osi}`);
  }

  termStructure(ticker: string, ms: number, keep: (l: OracleLeg, moneyType: string) => boolean) {
    const { spot, legs } = this.surface(ticker, ms);
    const data: Record<string, Record<string, Record<string, { delta: number; iv: number; moneyType: string }>>> = {};
    for (const l of legs) {
      if (!l.greeks) continue;
      const moneyType = moneynessOf(l.right, spot!, l.strike).moneyType;
      if (!keep(l, moneyType)) continue;
      ((data[l.expiration] ??= {})[strikeText(l.strike)] ??= {})[l.right] = { delta: l.greeks.delta, iv: l.greeks.iv, moneyType };
    }
    return { stockPrice: spot, data };
  }

  exposure(ticker: string, ms: number, greek: GreekMode, representation: RepresentationMode, keep: (l: OracleLeg, moneyType: string) => boolean) {
    const { spot, legs } = this.surface(ticker, ms);
    const S = spot!;
    const field = { CHARM: 'charm', DELTA: 'delta', GAMMA: 'gamma', VANNA: 'vanna' }[greek] as keyof SurfaceGreeks;
    const map: Record<string, Record<string, { callExposure?: number; putExposure?: number }>> = {};
    for (const l of legs) {
      const oi = this.openInterest(sessionDateOf(ms), l.osi);
      if (!l.greeks || !oi) continue;
      if (!keep(l, moneynessOf(l.right, S, l.strike).moneyType)) continue;
      const raw = oi * l.greeks[field] * 100;
      const value = representation === 'RAW' ? raw : representation === 'PER_ONE_DOLLAR_MOVE' ? raw * S : raw * S * 0.01 * S;
      ((map[l.expiration] ??= {})[strikeText(l.strike)] ??= {})[l.right === 'CALL' ? 'callExposure' : 'putExposure'] = value;
    }
    return { exposureMap: map, stockPrice: S };
  }

  /** volatility-skew: the IV of every priced leg; nothing matching gives stockPrice 0 and data {}. */
  skew(ticker: string, ms: number, keep: (l: OracleLeg) => boolean) {
    const { spot, legs } = this.surface(ticker, ms);
    const data: Record<string, Record<string, { CALL?: number; PUT?: number }>> = {};
    for (const l of legs) if (l.greeks && keep(l)) ((data[l.expiration] ??= {})[strikeText(l.strike)] ??= {})[l.right] = l.greeks.iv;
    return Object.keys(data).length ? { stockPrice: spot, data } : { stockPrice: 0, data: {} };
  }

  /**
   * exposure-by-expiration: per expiration, each leg's exposures summed in OSI order, under the
   * contributing strike nearest the spot (the lower on a tie).
   */
  exposureByExpiration(ticker: string, ms: number, greek: GreekMode, representation: RepresentationMode, keep: (l: OracleLeg, moneyType: string) => boolean) {
    const { spot } = this.surface(ticker, ms);
    const S = spot!;
    const field = { CHARM: 'charm', DELTA: 'delta', GAMMA: 'gamma', VANNA: 'vanna' }[greek] as keyof SurfaceGreeks;
    const legs = this.surface(ticker, ms).legs.sort((a, b) => (a.osi < b.osi ? -1 : 1));
    const byExp = new Map<string, { strikes: number[]; call?: number; put?: number }>();
    for (const l of legs) {
      const oi = this.openInterest(sessionDateOf(ms), l.osi);
      if (!l.greeks || !oi) continue;
      if (!keep(l, moneynessOf(l.right, S, l.strike).moneyType)) continue;
      const raw = oi * l.greeks[field] * 100;
      const value = representation === 'RAW' ? raw : representation === 'PER_ONE_DOLLAR_MOVE' ? raw * S : raw * S * 0.01 * S;
      const e = byExp.get(l.expiration) ?? { strikes: [] };
      byExp.set(l.expiration, e);
      e.strikes.push(l.strike);
      if (l.right === 'CALL') e.call = (e.call ?? 0) + value;
      else e.put = (e.put ?? 0) + value;
    }
    const map: Record<string, Record<string, { callExposure?: number; putExposure?: number }>> = {};
    for (const [exp, e] of byExp) {
      const key = [...e.strikes].sort((a, b) => Math.abs(a - S) - Math.abs(b - S) || a - b)[0];
      map[exp] = { [strikeText(key)]: { ...(e.call !== undefined && { callExposure: e.call }), ...(e.put !== undefined && { putExposure: e.put }) } };
    }
    return { exposureMap: map, stockPrice: S };
  }

  /** heat-map's per-leg modes: quote sides, midpoint, IV (and SIGMA, the same) or a BSM greek at the IV. */
  heatLeg(ticker: string, ms: number, right: 'CALL' | 'PUT', quantity: string, keep: (l: OracleLeg) => boolean) {
    const { spot, legs } = this.surface(ticker, ms);
    const data: Record<string, Record<string, { value: number }>> = {};
    for (const l of legs) {
      if (l.right !== right || !l.greeks || !keep(l)) continue;
      let value: number;
      if (quantity === 'ASK_PRICE') value = l.ask;
      else if (quantity === 'BID_PRICE') value = l.bid;
      else if (quantity === 'OPTION_PRICE') value = (l.bid + l.ask) / 2;
      else if (quantity === 'IMPLIED_VOLATILITY' || quantity === 'SIGMA') value = l.greeks.iv;
      else {
        const g = bsmGreeks({
          right,
          spot: spot!,
          strike: l.strike,
          t: yearsToExpiry(ms, l.expiration),
          vol: l.greeks.iv,
          rate: RISK_FREE_RATE,
          dividend: dividendYield(ticker),
        });
        value = g[quantity.toLowerCase() as keyof typeof g];
      }
      (data[l.expiration] ??= {})[strikeText(l.strike)] = { value };
    }
    return data;
  }

  /** heat-map NET_OPEN_INTEREST: the session's positive open interest of the ticker's contracts. */
  heatOpenInterest(ticker: string, date: string, keep: (l: { right: 'CALL' | 'PUT'; strike: number; expiration: string }) => boolean) {
    const data: Record<string, Record<string, { callValue?: number; putValue?: number }>> = {};
    for (const [k, oi] of this.oi) {
      const [d, osi] = k.split('|');
      const p = parseOsi(osi)!;
      if (d !== date || p.root !== ticker || !(oi > 0) || !keep(p)) continue;
      ((data[p.expiration] ??= {})[strikeText(p.strike)] ??= {})[p.right === 'CALL' ? 'callValue' : 'putValue'] = oi;
    }
    return data;
  }

  /** iv-rank: per held session the ATM IV (nearest strike, lower on a tie) of the expiration nearest the maturity. */
  ivRank(ticker: string, lookBack: number, maturity: number, legs: readonly ('CALL' | 'PUT')[]) {
    const lastOfDay = new Map<string, number>();
    for (const t of this.snapshots(ticker)) lastOfDay.set(sessionDateOf(t), t);
    const held = [...lastOfDay.entries()].filter(([, t]) => this.spotAt(ticker, t) !== null).sort(([a], [b]) => (a < b ? -1 : 1));
    const series = held.map(([date, t]) => {
      const { spot, legs: all } = this.surface(ticker, t);
      const atm = new Map<string, { CALL: number | null; PUT: number | null }>();
      for (const exp of new Set(all.map((l) => l.expiration))) {
        const pick = (right: 'CALL' | 'PUT') => {
          const c = all
            .filter((l) => l.expiration === exp && l.right === right && l.greeks)
            .sort((a, b) => Math.abs(a.strike - spot!) - Math.abs(b.strike - spot!) || a.strike - b.strike);
          return c.length ? c[0].greeks!.iv : null;
        };
        atm.set(exp, { CALL: pick('CALL'), PUT: pick('PUT') });
      }
      const candidates = [...atm.entries()]
        .map(([exp, iv]) => ({ exp, iv, dte: toDayNumber(exp) - toDayNumber(date) }))
        .filter((c) => c.dte >= maturity / 2 && c.dte <= maturity * 1.5 && legs.some((l) => c.iv[l] !== null))
        .sort((a, b) => Math.abs(a.dte - maturity) - Math.abs(b.dte - maturity) || (a.exp < b.exp ? -1 : 1));
      if (!candidates.length) return null;
      const c = candidates[0];
      return {
        date,
        exp: c.exp,
        spot: spot!,
        iv: Object.fromEntries(legs.filter((l) => c.iv[l] !== null).map((l) => [l, c.iv[l]!])) as Record<string, number>,
      };
    });
    const data: Record<string, unknown> = {};
    const exps = new Set<string>();
    for (let i = Math.max(0, held.length - lookBack); i < held.length; i++) {
      const s = series[i];
      if (!s) continue;
      const ivData: Record<string, unknown> = {};
      for (const leg of Object.keys(s.iv)) {
        const window = series.slice(Math.max(0, i - lookBack + 1), i + 1).flatMap((x) => (x && x.iv[leg] !== undefined ? [x.iv[leg]] : []));
        ivData[leg] = { lastIv: s.iv[leg], windowMaxIv: Math.max(...window), windowMinIv: Math.min(...window) };
      }
      exps.add(s.exp);
      data[s.date] = { contractTypeToIVData: ivData, expirationDate: s.exp, stockPrice: s.spot };
    }
    return { expirationDates: [...exps].sort(), data, heldSessions: held.length };
  }
}

export function strikeText(strike: number): string {
  return Number.isInteger(strike) ? `${strike}.0` : String(strike);
}
