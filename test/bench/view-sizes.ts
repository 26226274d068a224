/**
 * What every view takes in Redis, per key family and per event, on a running stack (the one
 * `npm start` left in .data, or the connection variables):
 *
 *   npx tsx test/bench/view-sizes.ts [--label NAME]
 *
 * For each projection's served version: SCAN its keys, MEMORY USAGE of each (Redis's estimate,
 * nested values sampled), summed by key family (the key's suffix after the partition tag, with
 * dates, tickers and contracts folded: `<D>:pb:<T>`), and divided by the messages of the view's
 * lead topic in Kafka (the first it reads; the others are joins). The "before" of the compact-views work, and its "after".
 * Results: test/bench/results/view-sizes[-NAME].json.
 */
import fs from 'fs';
import path from 'path';
import { parseArgs } from 'util';
import { PROJECTIONS } from '../../projections/registry';
import { topicName } from '../../schemas/catalog';
import { loadConfig } from '../../services/config';
import { createKafka } from '../../services/kafka/clients';
import { createSingleRedis } from '../../services/redis/client';
import { repoRoot } from '../../services/stack/paths';
import type Redis from 'ioredis';
import { PartitionKeys, pointerKey } from '../../services/views/keys';
import { ORDER_FLOW_CONSOLIDATED_VIEW, ORDER_FLOW_PRINTS_VIEW, orderFlowLayout } from '../../services/views/order-flow';
import { EQUITY_PRINTS_LAYOUT } from '../../services/views/equities/equity-prints';
import { TableKeys } from '../../services/views/table';
import { WarmKeys, readSessionMetas, warmField } from '../../services/views/warm-tier';

const { values } = parseArgs({ options: { label: { type: 'string' } } });

/** A key's family: its suffix with dates, epoch numbers, tickers, OSI symbols and open-interest buckets folded. */
export function keyFamily(suffix: string): string {
  return suffix
    .split(':')
    .map((part) => {
      if (/^\d{4}-\d{2}-\d{2}$/.test(part)) return '<D>';
      if (/^\d+$/.test(part)) return '<N>';
      if (/^[A-Z]{1,6}\s+\d{6}[CP]\d{8}$/.test(part)) return '<OSI>';
      if (/^[A-Z][A-Z._]{5}\d{6}$/.test(part)) return '<ROOT_YYMMDD>';
      if (/^[A-Z][A-Z.]{0,5}$/.test(part)) return '<T>';
      return part;
    })
    .join(':');
}

async function main(): Promise<void> {
  const config = loadConfig();
  const redis = createSingleRedis(config.viewsRedisUrl);
  const admin = createKafka(config, 'view-sizes').admin();
  await admin.connect();
  const out: Record<string, unknown> = {
    keyPrefix: config.keyPrefix,
    measured: "MEMORY USAGE per key (default sampling), summed; events = messages in the view's lead topic",
  };
  const views: Record<string, unknown> = {};
  try {
    for (const p of PROJECTIONS) {
      const version = Number(await redis.get(pointerKey(config.keyPrefix, p.view)));
      if (!version) continue;
      const base = `${config.keyPrefix}:${p.view}:v${version}:`;
      const families = new Map<string, { keys: number; bytes: number }>();
      // Bytes per (partition, session) of keys named by a session, for the tiers' figures.
      const bySession = new Map<string, number>();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${base}*`, 'COUNT', 2000);
        cursor = next;
        const pipe = redis.pipeline();
        for (const k of keys) pipe.memory('USAGE', k);
        const sizes = (await pipe.exec()) ?? [];
        keys.forEach((k, i) => {
          const suffix = k.slice(base.length).replace(/^\{p\d+\}:?/, '');
          const fam = keyFamily(suffix) || '(partition root)';
          const f = families.get(fam) ?? { keys: 0, bytes: 0 };
          f.keys++;
          f.bytes += Number(sizes[i]?.[1] ?? 0);
          families.set(fam, f);
          const m = /^\{p(\d+)\}:(\d{4}-\d{2}-\d{2}):/.exec(k.slice(base.length));
          if (m) bySession.set(`${Number(m[1])}/${m[2]}`, (bySession.get(`${Number(m[1])}/${m[2]}`) ?? 0) + Number(sizes[i]?.[1] ?? 0));
        });
      } while (cursor !== '0');
      // Per event of the lead topic (the first: what the view is a view of); the others are joins.
      const topics: Record<string, number> = {};
      for (const t of p.topics) {
        const offsets = await admin.fetchTopicOffsets(topicName(t, config.topicPrefix)).catch(() => []);
        topics[t.name] = offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
      }
      const events = topics[p.topics[0]!.name] ?? 0;
      const bytes = [...families.values()].reduce((n, f) => n + f.bytes, 0);
      const top = [...families].sort((a, b) => b[1].bytes - a[1].bytes);
      const tiers = await tierSizes(redis, config.keyPrefix, p.view, version, bySession);
      views[p.view] = { version, bytes, events, topics, bytesPerEvent: events ? Math.round(bytes / events) : null, tiers, families: Object.fromEntries(top) };
      console.log(
        `${p.view.padEnd(24)} ${(bytes / 2 ** 20).toFixed(1).padStart(8)} MiB  ${String(events).padStart(10)} events  ${events ? Math.round(bytes / events) : '-'} B/event`,
      );
      for (const [fam, f] of top.slice(0, 5)) console.log(`    ${fam.padEnd(28)} ${(f.bytes / 2 ** 20).toFixed(1).padStart(8)} MiB in ${f.keys} keys`);
      if (tiers)
        for (const [tier, t] of Object.entries(tiers))
          console.log(
            `    ${tier} tier: ${t.sessions} sessions, ${t.rows} rows, ${t.bytesPerRow} B/row, ${(t.bytesPerSession / 2 ** 20).toFixed(2)} MiB/session`,
          );
    }
  } finally {
    await admin.disconnect();
    redis.disconnect();
  }
  out.views = views;
  const file = path.join(repoRoot, 'test/bench/results', `view-sizes${values.label ? `-${values.label}` : ''}.json`);
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`results written to ${path.relative(repoRoot, file)}`);
}

interface TierFigures {
  sessions: number;
  rows: number;
  bytes: number;
  bytesPerRow: number;
  bytesPerSession: number;
}

/**
 * For a view with a warm tier (services/views/warm-tier.ts): the bytes of session-named keys and
 * the rows of hot and of warm sessions, from each partition's tier hash (null for other views).
 */
async function tierSizes(
  redis: Redis,
  prefix: string,
  view: string,
  version: number,
  bySession: Map<string, number>,
): Promise<Record<string, TierFigures> | null> {
  const layout = [orderFlowLayout(ORDER_FLOW_PRINTS_VIEW), orderFlowLayout(ORDER_FLOW_CONSOLIDATED_VIEW), EQUITY_PRINTS_LAYOUT].find((l) => l.view === view);
  if (!layout) return null;
  const blank = () => ({ pairs: 0, dates: new Set<string>(), rows: 0, bytes: 0 });
  // `stateOnly`: warm sessions without rows (the order-flow views' open interest of a session whose ticks are not in).
  const acc = { hot: blank(), warm: blank(), stateOnly: blank() };
  for (const [pd, bytes] of bySession) {
    const [p, d] = pd.split('/');
    const keys = new PartitionKeys(prefix, view, version, Number(p));
    const blocks = await redis.hget(new WarmKeys(keys).tier, warmField(d));
    const warm = blocks !== null;
    const a = blocks === '0' ? acc.stateOnly : warm ? acc.warm : acc.hot;
    a.pairs++;
    a.dates.add(d);
    a.bytes += bytes;
    if (warm) for (const meta of (await readSessionMetas(redis, [{ w: new WarmKeys(keys), seg: d }]))[0]) a.rows += meta.count;
    else a.rows += await redis.hlen(new TableKeys(keys).rows(d));
  }
  const fig = (a: typeof acc.hot): TierFigures => ({
    sessions: a.dates.size,
    rows: a.rows,
    bytes: a.bytes,
    bytesPerRow: a.rows ? Math.round(a.bytes / a.rows) : 0,
    bytesPerSession: a.dates.size ? Math.round(a.bytes / a.dates.size) : 0,
  });
  return { hot: fig(acc.hot), warm: fig(acc.warm), ...(acc.stateOnly.pairs ? { stateOnly: fig(acc.stateOnly) } : {}) };
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
