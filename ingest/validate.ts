import type avro from 'avsc';
import { avroTypeOf, topicFor, TOPICS, type TopicSpec } from '../schemas/catalog';
import { NEWS_TOPICS, SENTIMENTS } from '../services/domain/news';
import { isNotificationType } from '../services/domain/notifications';
import { parseOsi } from '../services/domain/osi';
import { INDUSTRIES, SECTORS } from '../services/domain/universe';
import { LIT_EQUITY_VENUES, OFF_EXCHANGE_VENUES, OPTION_EXCHANGES } from '../services/domain/venues';

/**
 * Validation of incoming events before they reach Kafka: the Avro schema (types, required
 * fields) and the domain rules Avro cannot express (enumerations, ranges). An event that fails
 * is never produced; the reason names the field.
 */

const topicSet = new Set<string>(NEWS_TOPICS);
const sentimentSet = new Set<string>(SENTIMENTS);
const TICKER = /^[A-Z0-9.\-/^]{1,21}$/;

type DomainCheck = (data: Record<string, unknown>) => string | null;
type Data = Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const sectorSet = new Set<string>(SECTORS);
const industrySet = new Set<string>(INDUSTRIES);
const has = (o: object, k: unknown) => typeof k === 'string' && Object.prototype.hasOwnProperty.call(o, k);

/** The first failing rule's message, or null. Rules are [condition that must hold, message]. */
function first(rules: [boolean, string][]): string | null {
  for (const [ok, msg] of rules) if (!ok) return msg;
  return null;
}
const epochMs = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
const ticker = (d: Data): [boolean, string] => [TICKER.test(String(d.ticker)), `ticker: ${JSON.stringify(d.ticker)} is not an upper-case symbol`];
const osi = (d: Data): [boolean, string] => [parseOsi(String(d.osi)) !== null, `osi: ${JSON.stringify(d.osi)} is not a 21-character OSI symbol`];
const nbbo = (d: Data): [boolean, string][] => [
  [(d.bidPrice as number) >= 0, 'bidPrice must be >= 0'],
  [(d.askPrice as number) >= (d.bidPrice as number), 'askPrice must be >= bidPrice (crossed NBBO)'],
];

const DOMAIN: Record<string, DomainCheck> = {
  instrument: (d) =>
    first([
      [TICKER.test(String(d.symbol)), `symbol: ${JSON.stringify(d.symbol)} is not an upper-case symbol`],
      [sectorSet.has(d.sector as string), `sector: ${JSON.stringify(d.sector)} is not one of the 12 sectors`],
      [industrySet.has(d.industry as string), `industry: ${JSON.stringify(d.industry)} is not one of the 160 industries`],
      [positive(d.typicalPrice), 'typicalPrice must be > 0'],
      [(d.annualVolatility as number) > 0, 'annualVolatility must be > 0'],
    ]),
  'calendar-day': (d) =>
    first([
      [DATE.test(String(d.date)), 'date must be yyyy-MM-dd'],
      [(d.status === 'CLOSED') === (d.openTime === null), 'openTime must be null exactly when status is CLOSED'],
      [d.openTime === null || (d.closeTime as number) > (d.openTime as number), 'closeTime must be after openTime'],
    ]),
  'underlying-price': (d) =>
    first([
      ticker(d),
      [DATE.test(String(d.sessionDate)), 'sessionDate must be yyyy-MM-dd'],
      [epochMs(d.time), 'time must be epoch-ms'],
      [positive(d.price), 'price must be > 0'],
    ]),
  'option-quote': (d) =>
    first([
      osi(d),
      ticker(d),
      [epochMs(d.time), 'time must be epoch-ms'],
      ...nbbo(d),
      [(d.bidSize as number) >= 0 && (d.askSize as number) >= 0, 'sizes must be >= 0'],
    ]),
  'open-interest': (d) => {
    const parts = parseOsi(String(d.osi));
    return first([
      osi(d),
      ticker(d),
      [(d.openInterest as number) >= 0, 'openInterest must be >= 0'],
      [DATE.test(String(d.sessionDate)), 'sessionDate must be yyyy-MM-dd'],
      [
        !parts || (parts.expiration === d.expirationDate && parts.strike === d.strikePrice && parts.right === d.contractType),
        'expirationDate, strikePrice and contractType must match the osi',
      ],
    ]);
  },
  'option-print': (d) =>
    first([
      osi(d),
      ticker(d),
      [epochMs(d.time), 'time must be epoch-ms'],
      [positive(d.price), 'price must be > 0'],
      [(d.size as number) > 0, 'size must be > 0'],
      [has(OPTION_EXCHANGES, d.exchange), `exchange: ${JSON.stringify(d.exchange)} is not a US options exchange code`],
      ...nbbo(d),
      [positive(d.underlyingPrice), 'underlyingPrice must be > 0'],
    ]),
  'equity-print': (d) =>
    first([
      ticker(d),
      [epochMs(d.time) && epochMs(d.reportTime), 'time and reportTime must be epoch-ms'],
      [(d.reportTime as number) >= (d.time as number), 'reportTime must not be before time'],
      [positive(d.price), 'price must be > 0'],
      [(d.size as number) > 0, 'size must be > 0'],
      [has(LIT_EQUITY_VENUES, d.venue) || has(OFF_EXCHANGE_VENUES, d.venue), `venue: ${JSON.stringify(d.venue)} is not a known venue code`],
      [(d.printType === 'DARK_POOL') === has(OFF_EXCHANGE_VENUES, d.venue), 'printType must be DARK_POOL exactly for off-exchange venues'],
      ...nbbo(d),
    ]),
  'exchange-notification': (d) =>
    first([
      ticker(d),
      [isNotificationType(d.type), `type: ${JSON.stringify(d.type)} is not one of the 36 notification types`],
      [epochMs(d.time), 'time must be epoch-ms'],
    ]),
  news: (d) => {
    if (!Number.isSafeInteger(d.id) || (d.id as number) < 0) return 'id must be a non-negative integer';
    if (!Number.isSafeInteger(d.publishedTime) || (d.publishedTime as number) < 0) return 'publishedTime must be epoch-ms (a non-negative integer)';
    if (typeof d.title !== 'string' || !d.title.trim()) return 'title must be a non-empty string';
    for (const [i, t] of (d.topics as unknown[]).entries()) {
      if (!topicSet.has(t as string)) return `topics[${i}]: ${JSON.stringify(t)} is not a canonical topic name`;
    }
    const seen = new Set<string>();
    for (const [i, t] of (d.tickers as { ticker: string; sentiment: string }[]).entries()) {
      if (!TICKER.test(t.ticker)) return `tickers[${i}].ticker: ${JSON.stringify(t.ticker)} is not an upper-case symbol`;
      if (!sentimentSet.has(t.sentiment)) return `tickers[${i}].sentiment: ${JSON.stringify(t.sentiment)} is not a sentiment`;
      if (seen.has(t.ticker)) return `tickers[${i}].ticker: ${t.ticker} is listed twice`;
      seen.add(t.ticker);
    }
    return null;
  },
};

export type Validated = { ok: true; spec: TopicSpec; data: Record<string, unknown> } | { ok: false; reason: string };

/** Validates one {type, data} envelope; defaults of the Avro schema are filled in. */
export function validateEvent(envelope: unknown): Validated {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return { ok: false, reason: 'line is not a JSON object {"type", "data"}' };
  const { type, data, ...rest } = envelope as Record<string, unknown>;
  if (Object.keys(rest).length) return { ok: false, reason: `unexpected field(s) ${Object.keys(rest).join(', ')} beside type and data` };
  if (typeof type !== 'string') return { ok: false, reason: 'type must be a string' };
  const spec = topicFor(type);
  if (!spec || spec.internal || spec.derived)
    return {
      ok: false,
      reason: `unknown event type ${JSON.stringify(type)} (known: ${TOPICS.filter((t) => !t.internal && !t.derived)
        .map((t) => t.eventType)
        .join(', ')})`,
    };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, reason: 'data must be an object' };
  const t = avroTypeOf(spec);
  // Fill schema defaults (e.g. body: null) so a minimal line is accepted like the registry would.
  const filled = { ...(data as Record<string, unknown>) };
  for (const f of (t as avro.types.RecordType).fields) {
    if (!(f.name in filled) && f.defaultValue() !== undefined) filled[f.name] = f.defaultValue();
  }
  const unknown = Object.keys(filled).filter((k) => !(t as avro.types.RecordType).fields.some((f) => f.name === k));
  if (unknown.length) return { ok: false, reason: `data has field(s) not in the ${type} schema: ${unknown.join(', ')}` };
  const problems: string[] = [];
  t.isValid(filled, { errorHook: (path, value) => problems.push(`${path.join('.') || 'data'}: ${JSON.stringify(value)} does not match the schema`) });
  if (problems.length) return { ok: false, reason: problems[0] };
  const domain = DOMAIN[type]?.(filled);
  if (domain) return { ok: false, reason: domain };
  return { ok: true, spec, data: filled };
}
