import type { GreekMode, RepresentationMode } from '../../../services/domain/volatility';
import { SURFACE_EXCLUSIVE, SURFACE_FIELDS } from '../../fields/volatility';
import { orderedMap } from '../../request/aggregation/ordered-map';
import type { EndpointContext } from '../../request/endpoint';
import { and, compileExpression } from '../../request/filter-expression';
import { filterPredicate, parseFilterObject, type FilterParam } from '../../request/filter-object';
import { requiredTickers } from '../../request/required-ticker';
import { parseTimeSelection } from '../../request/time-selectors';
import { exposureMap, snapshotExposures, type ExposureCell, type LegExposure } from './exposure';
import { VolatilityReader } from './reader';

/**
 * The answer of the exposure endpoints: per ticker asked for, the legs' exposures at the snapshot
 * (snapshotExposures), arranged by `arrange` (per strike as they are, or totalled per expiration),
 * in the one wire shape they share.
 */
export async function exposureAnswer(
  body: Record<string, unknown>,
  ctx: EndpointContext,
  filters: readonly FilterParam[],
  arrange: (exposures: LegExposure[], spot: number) => Iterable<LegExposure>,
): Promise<{ data: unknown }> {
  const sel = parseTimeSelection(body, ['sessionDate', 'snapshotTime']);
  const filter = parseFilterObject(body.filter, filters, SURFACE_FIELDS, SURFACE_EXCLUSIVE);
  const tickers = requiredTickers(filter);
  const expr = body.filterExpression == null ? null : compileExpression(body.filterExpression, SURFACE_FIELDS, 'A');
  const keep = and([filterPredicate(filter), ...(expr ? [expr.predicate] : [])]);
  const greek = body.greekMode as GreekMode;
  const representation = body.representationMode as RepresentationMode;
  const reader = await VolatilityReader.open(ctx);
  const out: [string, { exposureMap: Record<string, Record<string, ExposureCell>>; stockPrice: number }][] = [];
  for (const ticker of tickers) {
    const { spot, exposures } = await snapshotExposures(reader, ticker, sel, greek, representation, keep);
    out.push([ticker, { exposureMap: exposureMap(arrange(exposures, spot)), stockPrice: spot }]);
  }
  return { data: orderedMap(out, 'text') };
}
