import { orderFlowConsolidatedProjection, orderFlowPrintsProjection, ORDER_FLOW_LAYOUT_FORMAT } from '../../projections/order-flow/projections';
import type { Projection } from '../../projections/runtime/projection';
import { formatKey, pointerKey } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import type { ConsolidatedTradeEvent, EnrichedPrintEvent, OrderFlowCommon } from '../../services/domain/order-flow';
import { bsmGreeks, type Greeks } from '../../services/domain/pricing';
import { RISK_FREE_RATE, dividendYield } from '../../services/domain/rates';
import { testConfig } from '../support/env';
import { openPipeline, snapshotView, type TestPipeline } from '../support/pipeline';
import { CONSOLIDATED_SPEC, OPEN_INTEREST_SPEC, PRINTS_SPEC, expectedConsolidatedRows, orderFlowFixture, projectDirect } from '../support/order-flow-data';

/**
 * A deployment upgrading the order-flow views: the derived topics hold events of row format 1
 * (seven greeks, moneyness as a signed fraction of the strike, this service's earlier trade-type
 * names, SINGLE versions) and the views were stored under layout 1. A projector of the current
 * layout rebuilds them through the existing rebuild path (ViewProjector: replay into version 2,
 * flip, drop version 1), and the rebuilt views equal, byte for byte, views built directly from
 * the same events written in the current format: every row is there, in the current shape.
 */

const config = testConfig('ofv-upgrade');
const fixture = orderFlowFixture({ sessions: ['2024-06-03'], printsPerSession: 300, seed: 11 });
const NEW_GREEKS = ['color', 'omega', 'sigma', 'speed', 'ultima', 'veta', 'vomma', 'zomma'] as const;
const OLD_TRADE_TYPE: Record<string, string> = { AUTO: 'ELECTRONIC', ISO: 'INTERMARKET_SWEEP', AUCT: 'AUCTION', CROSS: 'CROSS', MULTI_AUTO: 'MULTI_LEG' };

/** The current form of a fixture event: greeks as the processor prices them (the fixture's are arbitrary). */
function current<E extends OrderFlowCommon>(e: E): E {
  const greeks =
    e.impliedVolatility === null
      ? null
      : bsmGreeks({
          right: e.contractType,
          spot: e.stockPrice,
          strike: e.strikePrice,
          t: Math.max(e.dte, 0) / 365,
          vol: e.impliedVolatility,
          rate: RISK_FREE_RATE,
          dividend: dividendYield(e.ticker),
        });
  return { ...e, greeks };
}

/** The same event as a processor of row format 1 wrote it (decoded with today's schema). */
function legacy<E extends OrderFlowCommon>(e: E): E {
  const signed = (e.contractType === 'CALL' ? e.stockPrice - e.strikePrice : e.strikePrice - e.stockPrice) / e.strikePrice;
  const greeks = e.greeks && ({ ...e.greeks, ...Object.fromEntries(NEW_GREEKS.map((g) => [g, null])) } as unknown as Greeks);
  return {
    ...e,
    greeks,
    moneyness: { degree: signed, degreeInPercent: signed * 100, moneyType: e.moneyness.moneyType },
    tradeType: OLD_TRADE_TYPE[e.tradeType] as E['tradeType'],
    rowFormat: 1,
  };
}

const prints = fixture.prints.map((e) => current<EnrichedPrintEvent>(e));
const consolidated = fixture.consolidated.map((e) => current<ConsolidatedTradeEvent>(e));
const VIEWS: [string, Projection, readonly object[]][] = [
  [ORDER_FLOW_PRINTS_VIEW, orderFlowPrintsProjection, prints],
  [ORDER_FLOW_CONSOLIDATED_VIEW, orderFlowConsolidatedProjection, consolidated],
];

let pipe: TestPipeline;
beforeAll(async () => {
  pipe = await openPipeline(config);
  await pipe.producer.send(OPEN_INTEREST_SPEC, fixture.openInterest as never);
  await pipe.producer.send(PRINTS_SPEC, prints.map(legacy) as never);
  await pipe.producer.send(CONSOLIDATED_SPEC, consolidated.map(legacy) as never);
}, 120_000);
afterAll(async () => {
  await pipe.close();
});

const withoutBookkeeping = (snap: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(snap).filter(([k]) => !k.endsWith(':offsets') && k !== 'format'));

it('the fixture has every old trade-type name, greeks and none, and consolidated trades that stay SINGLE', () => {
  expect(new Set(prints.map((e) => legacy(e).tradeType))).toEqual(new Set(Object.values(OLD_TRADE_TYPE)));
  expect(prints.some((e) => e.greeks === null) && prints.some((e) => e.greeks !== null)).toBe(true);
  const rows = expectedConsolidatedRows({ ...fixture, consolidated });
  expect(rows.length).toBeLessThan(new Set(consolidated.map((e) => e.rowKey)).size);
});

it.each(VIEWS)('%s: a view of layout 1 over events of row format 1 is rebuilt into the current rows, none lost', async (view, projection, events) => {
  const prefix = `${config.keyPrefix}-${view}`;
  // Version 1 under layout 1, as the deployment before the change left it.
  const old = pipe.newProjector(prefix, { ...projection, format: undefined });
  await old.start();
  await pipe.waitCaughtUp(1, prefix, 90_000, projection);
  await old.stop();
  expect(await pipe.redis.get(formatKey(prefix, view, 1))).toBe('1');

  const now = pipe.newProjector(prefix, projection);
  await now.start();
  expect(now.version).toBe(2);
  expect(await pipe.redis.get(pointerKey(prefix, view))).toBe('2');
  expect(await pipe.redis.get(formatKey(prefix, view, 2))).toBe(String(ORDER_FLOW_LAYOUT_FORMAT));
  await now.stop();

  // The reference: the same events in the current format, projected directly (no Kafka).
  const reference = `${config.keyPrefix}-ref-${view}`;
  await projectDirect(pipe.redis, reference, 1, projection, [
    { spec: OPEN_INTEREST_SPEC, events: fixture.openInterest },
    { spec: projection === orderFlowPrintsProjection ? PRINTS_SPEC : CONSOLIDATED_SPEC, events },
  ]);
  const want = withoutBookkeeping(await snapshotView(pipe.redis, reference, view, 1));
  expect(Object.keys(want).length).toBeGreaterThan(10);
  expect(withoutBookkeeping(await snapshotView(pipe.redis, prefix, view, 2))).toEqual(want);
  expect(await snapshotView(pipe.redis, prefix, view, 1)).toEqual({});
});
