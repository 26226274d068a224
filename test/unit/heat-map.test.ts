import { HEAT_MAP_MODES, LEG_QUANTITIES, NET_MODES, heatMapMode, legValue } from '../../services/domain/heat-map';
import { bsmGreeks, GREEK_NAMES } from '../../services/domain/pricing';
import { yearsToExpiry } from '../../services/domain/volatility';
import { expirationTotals } from '../../api/views/volatility/exposure';

describe('heat-map modes', () => {
  it('are the 46 documented ones: 8 contract-type modes and 19 per leg', () => {
    expect(HEAT_MAP_MODES).toHaveLength(46);
    expect(new Set(HEAT_MAP_MODES).size).toBe(46);
    for (const m of NET_MODES) expect(heatMapMode(m).type).toBe('contract');
    for (const q of LEG_QUANTITIES) {
      expect(heatMapMode(`CALL_${q}`)).toEqual({ type: 'single', source: 'leg', right: 'CALL', quantity: q });
      expect(heatMapMode(`PUT_${q}`)).toEqual({ type: 'single', source: 'leg', right: 'PUT', quantity: q });
    }
    expect(heatMapMode('NET_VANNA_EXPOSURE')).toEqual({ type: 'contract', source: 'exposure', greek: 'VANNA' });
    expect(heatMapMode('NET_OPEN_INTEREST')).toEqual({ type: 'contract', source: 'openInterest' });
    expect(heatMapMode('NET_PREMIUM')).toEqual({ type: 'contract', source: 'flow', measure: 'premium' });
    expect(heatMapMode('NET_TRADE_COUNT')).toEqual({ type: 'contract', source: 'flow', measure: 'tradeCount' });
    expect(heatMapMode('NET_VOLUME')).toEqual({ type: 'contract', source: 'flow', measure: 'volume' });
    expect(() => heatMapMode('NET_THETA_EXPOSURE')).toThrow(/unknown/);
    expect(() => heatMapMode('CALL_LAMBDA')).toThrow(/unknown/);
  });

  it('per-leg quantities: quote sides, midpoint, IV and SIGMA equal, the pricing module greeks at the IV', () => {
    const atMs = Date.UTC(2026, 10, 20, 18, 0);
    const leg = { right: 'PUT' as const, strike: 590, expiration: '2026-12-18', bid: 7.1, ask: 7.4, iv: 0.21 };
    const args = [600, atMs, 0.045, 0.013] as const;
    expect(legValue('ASK_PRICE', leg, ...args)).toBe(7.4);
    expect(legValue('BID_PRICE', leg, ...args)).toBe(7.1);
    expect(legValue('OPTION_PRICE', leg, ...args)).toBe((7.1 + 7.4) / 2);
    expect(legValue('IMPLIED_VOLATILITY', leg, ...args)).toBe(0.21);
    expect(legValue('SIGMA', leg, ...args)).toBe(0.21);
    const g = bsmGreeks({ right: 'PUT', spot: 600, strike: 590, t: yearsToExpiry(atMs, '2026-12-18'), vol: 0.21, rate: 0.045, dividend: 0.013 });
    for (const name of GREEK_NAMES) {
      const q = name.toUpperCase() as (typeof LEG_QUANTITIES)[number];
      expect(LEG_QUANTITIES).toContain(q);
      expect(legValue(q, leg, ...args)).toBe(g[name]);
    }
    expect(legValue('DELTA', leg, ...args)).toBeLessThan(0);
  });
});

describe('exposure-by-expiration totals', () => {
  it('sums each leg per expiration under the contributing strike nearest the price, the lower on a tie', () => {
    const e = (expiration: string, strike: number, right: 'CALL' | 'PUT', exposure: number) => ({ expiration, strike, right, exposure });
    const out = expirationTotals(
      [
        e('2026-12-18', 590, 'CALL', 1),
        e('2026-12-18', 600, 'CALL', 2),
        e('2026-12-18', 620, 'PUT', -4),
        e('2027-01-15', 595, 'PUT', -1),
        e('2027-01-15', 605, 'PUT', -2),
      ],
      600,
    );
    expect(out).toEqual([
      e('2026-12-18', 600, 'CALL', 3),
      e('2026-12-18', 600, 'PUT', -4),
      // 595 and 605 are as near 600: the lower strike keys the expiration; no call contributed, so no call entry.
      e('2027-01-15', 595, 'PUT', -3),
    ]);
    expect(expirationTotals([], 600)).toEqual([]);
  });
});
