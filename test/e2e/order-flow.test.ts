import fc from 'fast-check';
import type { Admin, Kafka } from 'kafkajs';
import { ChunkWriter } from '../../ingest/produce/chunk-writer';
import { marketFor } from '../../ingest/produce/session-producer';
import type { SimEvent } from '../../ingest/simulator/events';
import { OrderFlowPartition, UNKNOWN_REFERENCE, type ReferenceData } from '../../projections/order-flow-processor/partition-state';
import { caughtUp, viewLag } from '../../projections/runtime/versions';
import { avroTypeOf, topicFor, topicName } from '../../schemas/catalog';
import { BLOCK_MIN_SIZE, openInterestFlags, type ConsolidatedTradeEvent, type OptionPrint } from '../../services/domain/order-flow';
import { sessionDateOf } from '../../services/domain/calendar';
import { RISK_FREE_RATE } from '../../services/domain/rates';
import { loadUniverse } from '../../services/domain/universe';
import { createKafka, createRegistry } from '../../services/kafka/clients';
import { createRedis } from '../../services/redis/client';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW } from '../../services/views/order-flow';
import { testConfig, waitFor } from '../support/env';
import { walkApi } from '../support/cursor-walk';
import { describeTableConformance } from '../support/table-conformance';
import { expectEqual } from '../support/expect-equal';
import { CONSOLIDATED_FIELDS, UNCONSOLIDATED_FIELDS } from '../../api/fields/option-trade';
import { TestApi, startApi } from '../support/http';
import { logEndAdmin, readCommittedRecords } from '../support/kafka-count';
import { GREEKS, OracleRow, evaluate, projectRow, requestArbitrary } from '../support/order-flow-oracle';
import { configEnv, spawnTs, provisionTestTopics } from '../support/pipeline';

/**
 * The order-flow tapes end to end: simulated prints, open interest and reference data go through
 * real Kafka, the order-flow processor (a process), the projectors (a process) and Redis to the
 * API over HTTP. Every answer is compared with a brute-force evaluation (test/support/
 * order-flow-oracle.ts) over rows computed independently from the same source events.
 */

const C = '/v1/options/tool/order-flow/consolidated';
const U = '/v1/options/tool/order-flow/unconsolidated';
const config = testConfig('order-flow');
const SYMBOLS = ['SPY', 'AAPL', 'JPM', 'XOM', 'GME', 'NVDA'];
const D1 = '2026-11-19';
const D2 = '2026-11-20';

const PRINT_KEYS = [
  'id',
  'osi',
  'ticker',
  'contractType',
  'expirationDate',
  'dte',
  'strikePrice',
  'sector',
  'industry',
  'exchange',
  'premium',
  'size',
  'volume',
  'openInterest',
  'optionPrice',
  'askPrice',
  'bidPrice',
  'bidAskSpread',
  'stockPrice',
  'impliedVolatility',
  'tradeSideCode',
  'tradeType',
  'sentimentType',
  'isUnusual',
  'isOpeningPosition',
  'isETF',
  'isIndex',
  'isVolumeGreaterThanOpenInterest',
  'greeks',
  'moneyness',
  'tradeTime',
];
const CONSOLIDATED_KEYS = [...PRINT_KEYS.filter((k) => k !== 'osi'), 'tradeConsolidationType', 'isGoldenSweep', 'comprisingTrades'];

function sourceEvents(): { reference: SimEvent[]; openInterest: SimEvent[]; prints: SimEvent[] } {
  const market = marketFor(42, 'dev');
  const prints: SimEvent[] = [];
  const openInterest: SimEvent[] = [];
  for (const [date, symbols] of [
    [D1, SYMBOLS.slice(0, 4)],
    [D2, SYMBOLS],
  ] as const) {
    const tick = market.session(date, 'tick', new Set(symbols));
    for (let k = 0; k < tick.chunks; k++) for (const e of tick.chunk(k)) if (e.type === 'option-print') prints.push(e);
    // Start-of-session open interest is in the daily tier; a few contracts get none (OI 0).
    const daily = market.session(date, 'daily', new Set(symbols));
    for (let k = 0; k < daily.chunks; k++)
      for (const e of daily.chunk(k)) if (e.type === 'open-interest' && Number(e.data.strikePrice) % 7 !== 0) openInterest.push(e);
  }
  const reference = loadUniverse().map((i) => ({ type: 'instrument' as const, time: 0, data: { ...i } as Record<string, unknown> }));
  return { reference, openInterest, prints };
}

const EVENTS = sourceEvents();
const REFERENCE = new Map<string, ReferenceData>(
  loadUniverse().map((i) => [i.symbol, { sector: i.sector, industry: i.industry, isETF: i.isETF, isIndex: i.isIndex }]),
);
let kafka: Kafka;
let admin: Admin;
let api: TestApi;
let children: ReturnType<typeof spawnTs>[] = [];
const rows = { prints: [] as OracleRow[], consolidated: [] as OracleRow[] };
/** Prints the source topic holds more than once, with where (partition@offset): none, exactly once. */
const committedTwice: string[] = [];
/** Groups of the fold that stayed one print below the block size: on no consolidated row. */
const lonePrints: OracleRow[] = [];

/** Expected rows: the processor's pure fold over the committed source, OI joined, latest consolidated version. */
async function expectedRows(): Promise<void> {
  const oi = new Map<string, number>();
  for (const e of EVENTS.openInterest) oi.set(`${e.data.sessionDate}|${e.data.osi}`, Number(e.data.openInterest));
  const printType = avroTypeOf(topicFor('option-print')!);
  const source = await readCommittedRecords(kafka, topicName(topicFor('option-print')!, config.topicPrefix));
  const latest = new Map<string, ConsolidatedTradeEvent>();
  const seen = new Map<string, string>();
  for (const [p, records] of source) {
    const part = new OrderFlowPartition(p, RISK_FREE_RATE);
    for (const r of records) {
      const print = printType.fromBuffer(r.value!.subarray(5)) as OptionPrint;
      const at = `${p}@${r.offset}`;
      if (seen.has(print.id)) committedTwice.push(`${print.id} at ${seen.get(print.id)} and ${at}`);
      else seen.set(print.id, at);
      const { enriched, consolidated } = part.apply(print, r.offset, REFERENCE.get(print.ticker) ?? UNKNOWN_REFERENCE);
      const { printId: _printId, rowFormat: _f, ...row } = enriched;
      rows.prints.push({ ...row, ...openInterestFlags(enriched, oi.get(`${enriched.sessionDate}|${enriched.osi}`) ?? 0) });
      latest.set(consolidated.rowKey, consolidated);
    }
  }
  for (const c of latest.values()) {
    const { version: _v, lastTradeTime: _l, osi: _o, rowFormat: _f, ...row } = c;
    const r = { ...row, ...openInterestFlags(c, oi.get(`${c.sessionDate}|${c.osi}`) ?? 0) };
    // A lone print below the block size is no consolidated trade (docs/order-flow.md).
    if (c.tradeConsolidationType === 'SINGLE') lonePrints.push(r);
    else rows.consolidated.push(r);
  }
}

beforeAll(async () => {
  await provisionTestTopics(config);
  kafka = createKafka(config, 'mdq-test');
  admin = logEndAdmin(kafka);
  await admin.connect();
  const writer = new ChunkWriter(kafka, createRegistry(config), config.topicPrefix, 'test-order-flow');
  await writer.connect();
  await writer.commit(EVENTS.reference, []);
  await writer.commit(EVENTS.openInterest, []);
  for (let i = 0; i < EVENTS.prints.length; i += 1000) await writer.commit(EVENTS.prints.slice(i, i + 1000), []);
  await writer.disconnect();
  await expectedRows();

  const env = configEnv(config);
  children = [
    spawnTs('projections/order-flow-processor/main.ts', [], env),
    spawnTs('projections/main.ts', [ORDER_FLOW_PRINTS_VIEW, ORDER_FLOW_CONSOLIDATED_VIEW], env),
  ];
  const redis = createRedis(config.viewsRedisUrl);
  const derived = (spec: string) => topicName(topicFor(spec as never)!, config.topicPrefix);
  const oiTopic = topicName(topicFor('open-interest')!, config.topicPrefix);
  await waitFor(
    'the views to hold every print',
    async () => {
      for (const child of children) if (child.exitCode !== null) throw new Error(`a pipeline process exited:\n${child.output().slice(-3000)}`);
      const offsets = await admin.fetchTopicOffsets(derived('enriched-print'));
      if (offsets.reduce((n, o) => n + Number(o.high), 0) < EVENTS.prints.length) return false;
      const a = await viewLag(admin, redis, [derived('enriched-print'), oiTopic], config.keyPrefix, ORDER_FLOW_PRINTS_VIEW, 1);
      const b = await viewLag(admin, redis, [derived('consolidated-trade'), oiTopic], config.keyPrefix, ORDER_FLOW_CONSOLIDATED_VIEW, 1);
      return caughtUp(a) && caughtUp(b);
    },
    240_000,
    500,
  );
  redis.disconnect();
  api = await startApi(config);
}, 400_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await api?.close();
  await admin?.disconnect();
});

const tapes = [
  { name: 'unconsolidated', path: U, rows: () => rows.prints, keys: PRINT_KEYS, max: 1000 },
  { name: 'consolidated', path: C, rows: () => rows.consolidated, keys: CONSOLIDATED_KEYS, max: 100 },
] as const;

const ofSession = (rs: OracleRow[], d: string) => rs.filter((r) => r.sessionDate === d);

const walk = (path: string, body: Record<string, unknown>) => walkApi(api, path, body);

it('the ingest committed every print exactly once', () => {
  expect(committedTwice.slice(0, 20)).toEqual([]);
  expect(rows.prints).toHaveLength(EVENTS.prints.length);
});

it('the data set has both sessions, every consolidation type and both open-interest outcomes', () => {
  expect(ofSession(rows.prints, D1).length).toBeGreaterThan(1000);
  expect(ofSession(rows.prints, D2).length).toBeGreaterThan(1000);
  expect(new Set(rows.consolidated.map((r) => r.tradeConsolidationType))).toEqual(new Set(['SWEEP', 'BLOCK', 'SPLIT']));
  expect(lonePrints.length).toBeGreaterThan(100);
  expect(rows.prints.some((r) => r.isOpeningPosition)).toBe(true);
  expect(rows.prints.some((r) => !r.isOpeningPosition)).toBe(true);
  expect(rows.consolidated.length).toBeLessThan(rows.prints.length);
});

describe.each(tapes)('$name', (tape) => {
  it('no time selector reads the latest session, newest first, 50 rows', async () => {
    const res = await api.post(tape.path, {});
    expect(res.status).toBe(200);
    const want = evaluate(ofSession(tape.rows(), D2), {}).slice(0, 50);
    expect((res.json as any).data).toEqual(want.map((r) => projectRow(r, {}, tape.keys)));
    expect((res.json as any).nextSearchAfter).toHaveLength(2);
  });

  it.each(['TRADE_TIME', 'PREMIUM', 'SIZE', 'VOLUME', 'DTE', 'STRIKE_PRICE', 'IMPLIED_VOLATILITY', 'TICKER', 'OPEN_INTEREST'])(
    'a cursor walk sorted by %s, both directions, returns every row of the session exactly once in order',
    async (field) => {
      for (const direction of ['ASCENDING', 'DESCENDING']) {
        const body = { sessionDate: D1, size: tape.max, sort: { field, direction }, includes: ['ID'] };
        const { rows: got } = await walk(tape.path, body);
        const want = evaluate(ofSession(tape.rows(), D1), body);
        expectEqual(
          got.map((r) => r.id),
          want.map((r) => r.id),
        );
        expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
      }
    },
  );

  it('small pages walk the same rows as large ones (ties included)', async () => {
    const base = { sessionDate: D2, sort: { field: 'SIZE', direction: 'DESCENDING' }, filter: { tickers: ['GME', 'JPM'] }, includes: ['ID'] };
    const want = evaluate(ofSession(tape.rows(), D2), base);
    // Pages of 7, or smaller on the consolidated tape (a few dozen trades), so a walk takes > 10.
    const body = { ...base, size: Math.max(1, Math.min(7, Math.floor(want.length / 12))) };
    const { rows: got, pages } = await walk(tape.path, body);
    expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
    expect(pages).toBeGreaterThan(10);
  });

  it('timeRange is [startTime, endTime) across sessions', async () => {
    const t = ofSession(tape.rows(), D1)
      .map((r) => r.tradeTime)
      .sort((a, b) => a - b);
    const window = {
      startMs: t[Math.floor(t.length * 0.9)],
      endMs: ofSession(tape.rows(), D2)
        .map((r) => r.tradeTime)
        .sort((a, b) => a - b)[200],
    };
    const body = {
      size: tape.max,
      timeRange: { startTime: new Date(window.startMs).toISOString(), endTime: new Date(window.endMs).toISOString() },
      includes: ['ID', 'TRADE_TIME'],
    };
    const { rows: got } = await walk(tape.path, body);
    const want = evaluate(tape.rows(), body, window);
    expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
    expect(new Set(want.map((r) => r.sessionDate))).toEqual(new Set([D1, D2]));
  });

  it('a session without data is an empty page; statistics are zero', async () => {
    const res = await api.post(tape.path, { sessionDate: '2026-11-18', includeStatistics: true });
    expect((res.json as any).data).toEqual([]);
    expect((res.json as any).statistics.PUT.BID).toEqual({ premium: 0, tradeCount: 0, volume: 0 });
  });

  it('statistics: per contract type and side over every matching row, first page only', async () => {
    for (const filter of [undefined, { tickers: 'GME' }, { contractTypes: 'PUT', premiumRange: { min: 5000 } }]) {
      const body = { sessionDate: D2, size: 5, includeStatistics: true, ...(filter ? { filter } : {}) };
      const res = await api.post(tape.path, body);
      const stats = (res.json as any).statistics;
      for (const type of ['CALL', 'PUT']) {
        for (const side of ['ABOVE_ASK', 'ASK', 'MID_MARKET', 'BID', 'BELOW_BID']) {
          const match = evaluate(ofSession(tape.rows(), D2), body).filter((r) => r.contractType === type && r.tradeSideCode === side);
          expect(stats[type][side].tradeCount).toBe(match.length);
          expect(stats[type][side].volume).toBe(match.reduce((s, r) => s + r.size, 0));
          expect(stats[type][side].premium).toBeCloseTo(
            match.reduce((s, r) => s + r.premium, 0),
            2,
          );
        }
      }
      const next = await api.post(tape.path, { ...body, searchAfter: (res.json as any).nextSearchAfter });
      expect(next.json).not.toHaveProperty('statistics');
    }
  });

  it('property: random filters, expressions, sorts, projections and sizes give the brute-force first page', async () => {
    const all = ofSession(tape.rows(), D2);
    const uniq = <T>(xs: T[]) => [...new Set(xs)].sort();
    const q = (xs: number[], n = 8) => {
      const s = [...xs].sort((a, b) => a - b);
      return uniq(Array.from({ length: n }, (_, i) => s[Math.floor((i * (s.length - 1)) / (n - 1))]));
    };
    const vocab = {
      tickers: SYMBOLS,
      osis: uniq(all.map((r) => r.osi)).slice(0, 20),
      sectors: uniq(all.map((r) => r.sector)),
      premiums: q(all.map((r) => r.premium)),
      sizes: q(all.map((r) => r.size)),
      volumes: q(all.map((r) => r.volume)),
      strikes: q(all.map((r) => r.strikePrice)),
      expirations: uniq(all.map((r) => r.expirationDate as string)).slice(0, 10),
      exchanges: uniq(all.map((r) => r.exchange)),
      consolidated: tape.name === 'consolidated',
    };
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(vocab, tape.max), async (req) => {
        const body = { ...req, sessionDate: D2 } as unknown as Record<string, any> & { size: number };
        const res = await api.post(tape.path, body);
        if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.json)}`);
        const want = evaluate(all, body);
        if (want.length) nonEmpty++;
        expectEqual(
          (res.json as any).data,
          want.slice(0, body.size).map((r) => projectRow(r, body, tape.keys)),
        );
        expect('nextSearchAfter' in (res.json as any)).toBe(want.length > body.size);
      }),
      { numRuns: 150, seed: 20261121 },
    );
    expect(nonEmpty).toBeGreaterThan(20);
  });
});

describe('tape-specific rules', () => {
  it('osi pins the unconsolidated tape to one contract', async () => {
    const osi = rows.prints.find((r) => r.sessionDate === D2 && r.ticker === 'SPY')!.osi;
    const { rows: got } = await walk(U, { sessionDate: D2, size: 1000, filter: { osi } });
    expect(got.map((r) => r.id)).toEqual(evaluate(ofSession(rows.prints, D2), { filter: { osi } }).map((r) => r.id));
    expect(got.every((r) => r.osi === osi)).toBe(true);
  });

  it('includeComprisingTrades nests every print of each consolidated trade; projection can drop them', async () => {
    const body = { sessionDate: D2, size: 100, includeComprisingTrades: true, filter: { tradeConsolidationTypes: ['SWEEP', 'SPLIT'] } };
    const res = await api.post(C, body);
    const want = evaluate(ofSession(rows.consolidated, D2), body).slice(0, 100);
    expect((res.json as any).data).toEqual(want.map((r) => projectRow(r, body, CONSOLIDATED_KEYS)));
    expect((res.json as any).data.every((r: any) => r.comprisingTrades.length >= 2)).toBe(true);
    const dropped = await api.post(C, { ...body, excludes: ['COMPRISING_TRADES'] });
    expect((dropped.json as any).data.every((r: any) => !('comprisingTrades' in r))).toBe(true);
    const plain = await api.post(C, { ...body, includeComprisingTrades: false });
    expect((plain.json as any).data.every((r: any) => !('comprisingTrades' in r))).toBe(true);
  });

  it('every print belongs to one consolidated trade, except the lone prints below the block size, which belong to none', () => {
    const ids = rows.consolidated.flatMap((r) => r.comprisingTrades.map((t: { id: string }) => t.id));
    const lone = lonePrints.map((r) => r.comprisingTrades[0].id);
    expect(lonePrints.every((r) => r.comprisingTrades.length === 1 && r.size < BLOCK_MIN_SIZE)).toBe(true);
    expect(ids.length + lone.length).toBe(rows.prints.length);
    expect(new Set([...ids, ...lone])).toEqual(new Set(rows.prints.map((r) => r.id)));
  });

  it('no consolidated row is outside SWEEP, SPLIT and BLOCK; a BLOCK is one print of 100+ contracts', async () => {
    for (const d of [D1, D2]) {
      const { rows: got } = await walk(C, { sessionDate: d, size: 100, includes: ['ID', 'TRADE_CONSOLIDATION_TYPE', 'SIZE'], includeComprisingTrades: true });
      expect(got.length).toBe(ofSession(rows.consolidated, d).length);
      expect(new Set(got.map((r) => r.tradeConsolidationType))).toEqual(new Set(['SWEEP', 'SPLIT', 'BLOCK']));
      for (const r of got.filter((x) => x.tradeConsolidationType === 'BLOCK')) expect(r.size).toBeGreaterThanOrEqual(BLOCK_MIN_SIZE);
    }
    const lone = lonePrints.find((r) => r.sessionDate === D2)!;
    const res = await api.post(C, { sessionDate: D2, filter: { tickers: lone.ticker }, filterExpression: { field: 'ID', operation: '=', value: lone.id } });
    expect((res.json as any).data).toEqual([]);
    // The same print is on the unconsolidated tape.
    const print = await api.post(U, { sessionDate: D2, filterExpression: { field: 'ID', operation: '=', value: lone.comprisingTrades[0].id } });
    expect((print.json as any).data).toHaveLength(1);
  });

  it.each(tapes)(
    "$name rows carry the vendor's details: fifteen greeks, dollar moneyness, vendor trade types, sentiment by contract type and side",
    async (tape) => {
      const { rows: got } = await walk(tape.path, { sessionDate: D2, size: tape.max });
      expect(got.length).toBe(ofSession(tape.rows(), D2).length);
      const withGreeks = got.filter((r) => r.greeks !== null);
      expect(withGreeks.length).toBeGreaterThan(got.length / 2);
      for (const r of withGreeks) {
        expect(Object.keys(r.greeks)).toEqual(GREEKS);
        expect(r.greeks.sigma).toBe(r.impliedVolatility);
      }
      for (const r of got) {
        expect(r.moneyness.degree).toBeCloseTo(Math.abs(r.strikePrice - r.stockPrice), 9);
        expect(r.moneyness.degreeInPercent).toBeCloseTo((Math.abs(r.strikePrice - r.stockPrice) / r.stockPrice) * 100, 9);
        const buy = r.tradeSideCode === 'ASK' || r.tradeSideCode === 'ABOVE_ASK';
        const sell = r.tradeSideCode === 'BID' || r.tradeSideCode === 'BELOW_BID';
        expect(r.sentimentType).toBe(!buy && !sell ? 'NEUTRAL' : buy === (r.contractType === 'CALL') ? 'BULLISH' : 'BEARISH');
      }
      // The simulator's condition codes are AUTO, ISOI, SLAN and SLCN.
      expect(new Set(got.map((r) => r.tradeType))).toEqual(new Set(['AUTO', 'ISO', 'AUCT', 'CROSS']));
    },
  );

  it('greek and moneyness ranges filter like the brute force, on both tapes', async () => {
    const filters = [
      { deltaRange: { min: 0.3, max: 0.7 } },
      { gammaRange: { min: 0.01 } },
      { thetaRange: { max: -0.05 } },
      { vegaRange: { min: 0.1, max: 0.5 } },
      { rhoRange: { min: 0 } },
      { charmRange: { max: 0 } },
      { colorRange: { min: 0 } },
      { speedRange: { max: 0 } },
      { vannaRange: { min: 0 } },
      { vommaRange: { min: 0.001 } },
      { vetaRange: { max: 0 } },
      { omegaRange: { min: 10 } },
      { sigmaRange: { min: 0.2, max: 0.4 } },
      { ultimaRange: { max: 0 } },
      { zommaRange: { max: 0 } },
      { moneynessInDollarsRange: { max: 5 } },
      { moneynessInPercentRange: { min: 2 } },
    ];
    expect(filters.map((f) => Object.keys(f)[0].replace(/Range$/, ''))).toEqual(expect.arrayContaining(GREEKS));
    for (const tape of tapes) {
      for (const filter of filters) {
        const body = { sessionDate: D2, size: tape.max, filter, includes: ['ID'] };
        const { rows: got } = await walk(tape.path, body);
        const want = evaluate(ofSession(tape.rows(), D2), body);
        expectEqual({ filter, n: got.length, ids: got.map((r) => r.id) }, { filter, n: want.length, ids: want.map((r) => r.id) });
        expect(want.length).toBeGreaterThan(0);
        expect(want.length).toBeLessThan(ofSession(tape.rows(), D2).length);
      }
    }
  });
});

describe('response cache', () => {
  // Last in the file: it adds a print to the views after every comparison with the oracle.
  it('an identical request is answered from the cache until the view changes, then from the new data', async () => {
    // An entry may live 60 s here (1 s by default), so only the view's stamp can end it in time.
    const cached = await startApi(config, { viewCacheTtlMs: 60_000 });
    try {
      const body = { sessionDate: D2, size: 3, includes: ['OSI', 'TRADE_TIME'] };
      const first = await cached.post(U, body);
      const again = await cached.post(U, body);
      expect(first.status).toBe(200);
      expect([first.headers.get('x-response-cache'), again.headers.get('x-response-cache')]).toEqual(['miss', 'hit']);
      expect(again.json).toEqual(first.json);
      // A different body is a different answer.
      const other = await cached.post(U, { ...body, size: 2 });
      expect(other.headers.get('x-response-cache')).toBe('miss');
      expect((other.json as any).data).toEqual((first.json as any).data.slice(0, 2));

      // One more print, later than every print of D2: it becomes the first row.
      const template = EVENTS.prints.filter((e) => sessionDateOf(e.time) === D2).reduce((a, b) => (b.time > a.time ? b : a));
      const time = template.time + 1_000;
      expect(sessionDateOf(time)).toBe(D2);
      const writer = new ChunkWriter(kafka, createRegistry(config), config.topicPrefix, 'test-order-flow-cache');
      await writer.connect();
      await writer.commit([{ ...template, time, data: { ...template.data, id: `${template.data.id}-cache`, time } }], []);
      await writer.disconnect();
      let fresh: Awaited<ReturnType<TestApi['post']>> | undefined;
      await waitFor(
        'the new print in the answer',
        async () => {
          fresh = await cached.post(U, body);
          return (fresh.json as any).data[0].tradeTime === time;
        },
        45_000,
        100,
      );
      expect(fresh!.headers.get('x-response-cache')).toBe('miss');
      expect((fresh!.json as any).data.slice(1)).toEqual((first.json as any).data.slice(0, 2));
      const after = await cached.post(U, body);
      expect(after.headers.get('x-response-cache')).toBe('hit');
      expect(after.json).toEqual(fresh!.json);
    } finally {
      await cached.close();
    }
  });
});

for (const tape of tapes) {
  describeTableConformance(tape.name, () => ({
    path: tape.path,
    api: () => api,
    fields: tape.name === 'consolidated' ? CONSOLIDATED_FIELDS : UNCONSOLIDATED_FIELDS,
    maxSize: tape.max,
    // The whole of D1 is 12,870 prints (a walk at size 7 is 1,839 pages); two tickers page the
    // same way at a tenth of the cost. The tests above walk whole sessions under nine sorts.
    base: tape.name === 'unconsolidated' ? { sessionDate: D1, filter: { tickers: ['JPM', 'XOM'] } } : { sessionDate: D1 },
    sortBase: { sessionDate: D1, filter: { tickers: tape.name === 'unconsolidated' ? ['XOM'] : ['GME', 'JPM', 'XOM'] } },
    oracle: (body) => evaluate(ofSession(tape.rows(), D1), body).map((r) => projectRow(r, body, tape.keys)),
    sortable: true,
  }));
}
