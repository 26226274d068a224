import avro from 'avsc';
import fs from 'fs';
import path from 'path';

/**
 * The topic catalog: every Kafka topic of the service, its key, partitioning, retention and
 * registry subject. Topics are created and schemas registered from this list at start-up.
 *
 * Keying rule (DESIGN.md "Co-partitioning"): market topics — option prints, option quotes, open
 * interest, underlying prices, equity prints, exchange notifications — are keyed by underlying
 * ticker and share MARKET_PARTITIONS, so partition p of each holds the same tickers and one
 * projector instance sees all it needs for them. Reference data (the ticker universe, calendars)
 * is keyed by its natural id on compacted topics. News is keyed by article id.
 */

export const MARKET_PARTITIONS = 12;

export type EventType =
  | 'instrument'
  | 'calendar-day'
  | 'underlying-price'
  | 'option-quote'
  | 'open-interest'
  | 'option-print'
  | 'equity-print'
  | 'exchange-notification'
  | 'news'
  | 'ingest-progress'
  | 'enriched-print'
  | 'consolidated-trade';

export interface TopicSpec {
  /** Event type used by file import lines ({"type": ..., "data": ...}). */
  eventType: EventType;
  /** Topic name without the deployment prefix. */
  name: string;
  /** What the message key is, in words (documentation) ... */
  keyDescription: string;
  /** ... and how to compute it from an event. */
  key: (event: Record<string, unknown>) => string;
  partitions: number;
  /** `delete` with retentionMs (-1 = keep forever) for event streams, `compact` for reference data. */
  cleanupPolicy: 'delete' | 'compact';
  retentionMs: number;
  /** Avro schema file under schemas/. */
  schemaFile: string;
  /** Internal bookkeeping topics are not accepted from import files. */
  internal?: boolean;
  /** Derived topics are written only by processors; import files cannot feed them either. */
  derived?: boolean;
}

const byTicker = (e: Record<string, unknown>) => String(e.ticker);
const market = (eventType: EventType, name: string, schemaFile: string): TopicSpec => ({
  eventType,
  name,
  keyDescription: 'underlying ticker',
  key: byTicker,
  partitions: MARKET_PARTITIONS,
  cleanupPolicy: 'delete',
  retentionMs: -1,
  schemaFile,
});

export const TOPICS: readonly TopicSpec[] = [
  {
    eventType: 'instrument',
    name: 'reference.instruments',
    keyDescription: 'symbol',
    key: (e) => String(e.symbol),
    partitions: 1,
    cleanupPolicy: 'compact',
    retentionMs: -1,
    schemaFile: 'instrument.avsc',
  },
  {
    eventType: 'calendar-day',
    name: 'reference.calendar',
    keyDescription: 'date',
    key: (e) => String(e.date),
    partitions: 1,
    cleanupPolicy: 'compact',
    retentionMs: -1,
    schemaFile: 'calendar-day.avsc',
  },
  market('underlying-price', 'market.underlying-prices', 'underlying-price.avsc'),
  market('option-quote', 'market.option-quotes', 'option-quote.avsc'),
  market('open-interest', 'market.open-interest', 'open-interest.avsc'),
  market('option-print', 'market.option-prints', 'option-print.avsc'),
  market('equity-print', 'market.equity-prints', 'equity-print.avsc'),
  market('exchange-notification', 'market.exchange-notifications', 'exchange-notification.avsc'),
  {
    eventType: 'news',
    name: 'news.articles',
    keyDescription: 'article id',
    key: (e) => String(e.id),
    partitions: MARKET_PARTITIONS,
    cleanupPolicy: 'delete',
    retentionMs: -1,
    schemaFile: 'news-article.avsc',
  },
  {
    eventType: 'ingest-progress',
    name: 'ingest.progress',
    keyDescription: 'stream name',
    key: (e) => String(e.stream),
    partitions: 1,
    cleanupPolicy: 'compact',
    retentionMs: -1,
    schemaFile: 'ingest-progress.avsc',
    internal: true,
  },
  // Derived by the order-flow processor (projections/order-flow-processor); co-partitioned with
  // the market topics so partition p of the derived topics holds the same tickers.
  { ...market('enriched-print', 'derived.order-flow.prints', 'enriched-print.avsc'), derived: true },
  { ...market('consolidated-trade', 'derived.order-flow.consolidated', 'consolidated-trade.avsc'), derived: true },
];

export function topicFor(eventType: string): TopicSpec | undefined {
  return TOPICS.find((t) => t.eventType === eventType);
}

/** The topic's name in a deployment (tests use a prefix to share a broker). */
export function topicName(spec: TopicSpec, prefix: string): string {
  return `${prefix}${spec.name}`;
}

/** Confluent TopicNameStrategy: `<topic>-value`. */
export function subjectName(spec: TopicSpec, prefix: string): string {
  return `${topicName(spec, prefix)}-value`;
}

const schemaCache = new Map<string, string>();
export function schemaText(spec: TopicSpec): string {
  let s = schemaCache.get(spec.schemaFile);
  if (!s) {
    s = fs.readFileSync(path.join(__dirname, spec.schemaFile), 'utf8');
    schemaCache.set(spec.schemaFile, s);
  }
  return s;
}

const avroTypes = new Map<string, avro.Type>();
/** The schema compiled by avsc, once per schema file. */
export function avroTypeOf(spec: TopicSpec): avro.Type {
  let t = avroTypes.get(spec.schemaFile);
  if (!t) {
    t = avro.Type.forSchema(JSON.parse(schemaText(spec)));
    avroTypes.set(spec.schemaFile, t);
  }
  return t;
}
