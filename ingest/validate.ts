import avro from 'avsc';
import { TopicSpec, schemaText, topicFor, TOPICS } from '../schemas/catalog';
import { NEWS_TOPICS, SENTIMENTS } from '../services/domain/news';

/**
 * Validation of incoming events before they reach Kafka: the Avro schema (types, required
 * fields) and the domain rules Avro cannot express (enumerations, ranges). An event that fails
 * is never produced; the reason names the field.
 */

const avroTypes = new Map<string, avro.Type>();
function avroType(spec: TopicSpec): avro.Type {
  let t = avroTypes.get(spec.schemaFile);
  if (!t) {
    t = avro.Type.forSchema(JSON.parse(schemaText(spec)));
    avroTypes.set(spec.schemaFile, t);
  }
  return t;
}

const topicSet = new Set<string>(NEWS_TOPICS);
const sentimentSet = new Set<string>(SENTIMENTS);
const TICKER = /^[A-Z0-9.\-/^]{1,21}$/;

type DomainCheck = (data: Record<string, unknown>) => string | null;

const DOMAIN: Record<string, DomainCheck> = {
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
  if (!spec) return { ok: false, reason: `unknown event type ${JSON.stringify(type)} (known: ${TOPICS.map((t) => t.eventType).join(', ')})` };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { ok: false, reason: 'data must be an object' };
  const t = avroType(spec);
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
