import type { PartitionKeys } from '../../../services/views/keys';
import { OI_LOOKUP_FIELDS, OI_LOOKUP_FILTERS } from '../../fields/open-interest-lookup';
import type { EndpointContext } from '../../request/endpoint';
import { parseFilterObject, type ParsedFilter } from '../../request/filter-object';
import { requiredTicker, tickerSchema } from '../../request/required-ticker';
import { parseTimeSelection, selectorSchemas, type TimeSelection } from '../../request/time-selectors';
import { fragments, type JsonSchema } from '../../request/validate';
import { oiSession, tickerKeys } from './read';

/**
 * The request of the per-session open-interest aggregations (open-interest-by-expiration,
 * open-interest-by-strike, max-pain-over-time): sessionDate only (open interest lags a session),
 * the required ticker, and at most one narrowing lookup (a strike or an expiration).
 */

type Lookup = 'expirationDate' | 'strikePrice';

export function oiSessionRequestSchema(lookups: Partial<Record<Lookup, JsonSchema>> = {}): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      ...selectorSchemas(['sessionDate'], 'Default: the latest session whose open interest is published (before the open, the prior session).'),
      filter: { ...fragments.filter, properties: { ticker: tickerSchema(), ...lookups } },
    },
  };
}

export interface OiSessionRequest {
  ticker: string;
  filter: ParsedFilter<unknown>;
  selection: TimeSelection;
}

/** The body checked and parsed; nothing read yet. */
export function parseOiSessionRequest(body: Record<string, unknown>, lookups: readonly Lookup[] = []): OiSessionRequest {
  const selection = parseTimeSelection(body, ['sessionDate']);
  const filter = parseFilterObject(body.filter, [OI_LOOKUP_FILTERS.ticker, ...lookups.map((l) => OI_LOOKUP_FILTERS[l])], OI_LOOKUP_FIELDS);
  return { ticker: requiredTicker(filter), filter, selection };
}

/** The ticker's partition keys and the session to read (the default resolved); null when the view holds neither. */
export async function oiSessionToRead(ctx: EndpointContext, req: OiSessionRequest): Promise<{ k: PartitionKeys; session: string } | null> {
  const k = await tickerKeys(ctx, req.ticker);
  const session = await oiSession(ctx, k, req.ticker, req.selection);
  return k && session ? { k, session } : null;
}
