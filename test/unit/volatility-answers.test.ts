import { moneynessOf } from '../../services/domain/order-flow';
import { GREEK_MODES, REPRESENTATION_MODES, legExposure, type SurfaceGreeks } from '../../services/domain/volatility';
import { orderedMap, strikeKey } from '../../services/views/ordered-map';
import { surfaceLegs, type SurfaceContract, type SurfaceLeg } from '../../services/views/volatility';
import { chainOf, exposureMapJson, rawExposureJson, termStructureJson } from '../../services/views/volatility-answers';

/**
 * The stored answers are written as text; these compare each with JSON.stringify of the maps the
 * endpoints built as objects before the answers were stored, on a small surface with every case:
 * both legs, one leg, a leg without greeks, a leg without open interest, greeks that do not make
 * a finite exposure, strikes and expirations out of order.
 */

const g = (delta: number, x = 1): SurfaceGreeks => ({ iv: 0.2 * x, delta, gamma: 0.013 * x, charm: -0.0021 * x, vanna: 0.0037 * x });
const osi = (exp: string, right: 'C' | 'P', strike: number) =>
  `SPY   ${exp.replace(/-/g, '').slice(2)}${right}${String(Math.round(strike * 1000)).padStart(8, '0')}`;
const contract = (exp: string, right: 'C' | 'P', strike: number, greeks: SurfaceGreeks | null): SurfaceContract => ({
  osi: osi(exp, right, strike),
  bid: 1,
  ask: 1.1,
  greeks,
});

const SPOT = 601.37;
const CONTRACTS: SurfaceContract[] = [
  contract('2026-12-18', 'C', 610, g(0.41)),
  contract('2026-12-18', 'P', 610, g(-0.59, 1.1)),
  contract('2026-12-18', 'C', 597.5, g(0.62)),
  contract('2026-11-20', 'P', 600, g(-0.48)),
  contract('2026-11-20', 'C', 600, null), // one-sided: no greeks
  contract('2026-11-20', 'C', 605, g(0.3)), // no open interest
  contract('2026-11-20', 'P', 590, { iv: 0.3, delta: -0.1, gamma: Infinity, charm: NaN, vanna: 0.01 }),
  contract('2027-01-15', 'C', 650, g(0.05)), // no open interest: the expiration has no exposure
];
const OI = new Map(CONTRACTS.filter((c) => !c.osi.includes('C00605') && !c.osi.includes('C00650')).map((c, i) => [c.osi, 100 + i * 37]));
const LEGS = surfaceLegs({ spot: SPOT, contracts: new Map(CONTRACTS.map((c) => [c.osi, c])) });

type Cell = Record<string, unknown>;
/** The maps as the endpoints built them: expiration -> strike -> cell, each level ordered, then JSON.stringify. */
function objectJson(legs: readonly SurfaceLeg[], cell: (l: SurfaceLeg) => unknown, names: [string, string]): string {
  const byExp = new Map<string, Map<string, Cell>>();
  for (const l of legs) {
    const v = cell(l);
    if (v === undefined) continue;
    let strikes = byExp.get(l.expiration);
    if (!strikes) byExp.set(l.expiration, (strikes = new Map()));
    const c = strikes.get(strikeKey(l.strike)) ?? {};
    c[l.right] = v;
    strikes.set(strikeKey(l.strike), c);
  }
  const map = orderedMap(
    [...byExp].map(
      ([e, s]) =>
        [
          e,
          orderedMap(
            [...s].map(([k, c]) => [k, { ...('CALL' in c && { [names[0]]: c.CALL }), ...('PUT' in c && { [names[1]]: c.PUT }) }]),
            'decimal',
          ),
        ] as const,
    ),
    'date',
  );
  return JSON.stringify(map);
}

describe('stored volatility answers', () => {
  const chain = chainOf(CONTRACTS);

  it('writes term-structure data as JSON.stringify writes the ordered map', () => {
    const expected = objectJson(
      LEGS,
      (l) => (l.greeks ? { delta: l.greeks.delta, iv: l.greeks.iv, moneyType: moneynessOf(l.right, SPOT, l.strike).moneyType } : undefined),
      ['CALL', 'PUT'],
    );
    expect(termStructureJson(chain, SPOT)).toBe(expected);
  });

  it('writes the RAW exposure of every greek, and each representation scaled from it, with the bits legExposure gives', () => {
    for (const greek of GREEK_MODES) {
      const oiOf = (l: SurfaceLeg) => OI.get(l.osi);
      const raw = rawExposureJson(chain, SPOT, (o) => OI.get(o), greek);
      expect(raw).toBe(objectJson(LEGS, (l) => (oiOf(l) && l.greeks ? legExposure(oiOf(l)!, l.greeks, greek, 'RAW', SPOT) : undefined), ['CALL', 'PUT']));
      for (const rep of REPRESENTATION_MODES)
        expect(exposureMapJson(raw, rep, SPOT)).toBe(
          objectJson(LEGS, (l) => (oiOf(l) && l.greeks ? legExposure(oiOf(l)!, l.greeks, greek, rep, SPOT) : undefined), ['callExposure', 'putExposure']),
        );
    }
  });

  it('keeps only the legs a filter keeps, and writes an empty map when none is left', () => {
    const only = chainOf(LEGS, (l) => l.expiration === '2026-12-18' && l.right === 'CALL');
    expect(Object.keys(JSON.parse(termStructureJson(only, SPOT)))).toEqual(['2026-12-18']);
    expect(Object.keys(JSON.parse(termStructureJson(only, SPOT))['2026-12-18'])).toEqual(['597.5', '610.0']);
    expect(
      termStructureJson(
        chainOf(LEGS, () => false),
        SPOT,
      ),
    ).toBe('{}');
    expect(rawExposureJson(chain, SPOT, () => undefined, 'GAMMA')).toBe('{}');
  });
});
