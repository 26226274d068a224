/**
 * CPU and Redis time of the volatility endpoints' handlers in one process, no HTTP:
 *
 *   npx tsx test/bench/volatility-read-cost.ts [sessions] [tickSessions] [requests]
 *
 * Projects `npm start`'s history (volatility-history.ts, default 20 sessions, the newest 2 with
 * ticks) into a private redis-server, then calls each case's handler `requests` times (default
 * 200, after 20 unmeasured) and prints the mean and median microseconds per request with a hash
 * of the answer. Run it from two checkouts to compare a storage change: the hashes must match
 * (same answers) and the times tell the read cost apart. Prints JSON; writes no file.
 */
import { createHash } from 'crypto';
import { heatMap } from '../../api/endpoints/options/heat-map';
import { exposureByStrike } from '../../api/endpoints/options/exposure-by-strike';
import { intervalMap } from '../../api/endpoints/options/interval-map';
import { termStructure } from '../../api/endpoints/options/term-structure';
import type { EndpointContext, EndpointDef } from '../../api/request/endpoint';
import { ViewPointers } from '../../api/views/pointer';
import { createLogger } from '../../services/log';
import { privateRedisServer } from '../support/bench-redis';
import { projectDevHistory } from './volatility-history';

const SESSIONS = Number(process.argv[2] ?? 20);
const TICK_SESSIONS = Number(process.argv[3] ?? 2);
const REQUESTS = Number(process.argv[4] ?? 200);
const THROUGH = '2026-11-20';

const CASES: [string, EndpointDef, Record<string, unknown>][] = [
  ['term-structure SPY latest', termStructure, { filter: { ticker: 'SPY' } }],
  ['term-structure SPX intraday', termStructure, { filter: { ticker: 'SPX' }, snapshotTime: '2026-11-20T18:00:00Z' }],
  ['term-structure AAPL history', termStructure, { filter: { ticker: 'AAPL' }, sessionDate: '2026-11-02' }],
  ['exposure-by-strike SPY gamma 1%', exposureByStrike, { filter: { ticker: 'SPY' }, greekMode: 'GAMMA', representationMode: 'PER_ONE_PERCENT_MOVE' }],
  [
    'exposure-by-strike SPX delta intraday',
    exposureByStrike,
    { filter: { ticker: 'SPX' }, greekMode: 'DELTA', representationMode: 'RAW', snapshotTime: '2026-11-20T18:00:00Z' },
  ],
  ['heat-map SPY net gamma', heatMap, { filter: { ticker: 'SPY' }, dataMode: 'NET_GAMMA_EXPOSURE' }],
  ['heat-map SPY call delta', heatMap, { filter: { ticker: 'SPY' }, dataMode: 'CALL_DELTA' }],
  ['interval-map SPY delta 5m', intervalMap, { filter: { ticker: 'SPY' }, greekMode: 'DELTA', aggregationPeriod: '5m', sessionDate: THROUGH }],
];

async function main(): Promise<void> {
  const { redis, server } = await privateRedisServer();
  try {
    await projectDevHistory(redis, 'bench', { sessions: SESSIONS, tickSessions: TICK_SESSIONS, through: THROUGH });
    const ctx: EndpointContext = {
      redis,
      keyPrefix: 'bench',
      views: new ViewPointers(redis, 'bench'),
      log: createLogger('bench', 'silent'),
      requestId: 'bench',
    };
    const out: Record<string, { meanUs: number; p50Us: number; answer: string }> = {};
    for (const [name, def, body] of CASES) {
      const answer = createHash('sha256')
        .update(JSON.stringify(await def.handle(structuredClone(body), ctx)))
        .digest('hex')
        .slice(0, 16);
      for (let i = 0; i < 20; i++) await def.handle(structuredClone(body), ctx);
      const us: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const b = structuredClone(body);
        const t0 = process.hrtime.bigint();
        await def.handle(b, ctx);
        us.push(Number(process.hrtime.bigint() - t0) / 1000);
      }
      us.sort((a, b) => a - b);
      out[name] = { meanUs: Math.round(us.reduce((a, b) => a + b, 0) / us.length), p50Us: Math.round(us[us.length >> 1]), answer };
    }
    console.log(JSON.stringify(out, null, 2));
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
