import { GREEK_MODES, REPRESENTATION_MODES } from '../../../services/domain/volatility';
import { tickerSchema } from '../../request/required-ticker';
import { fragments, type JsonSchema } from '../../request/validate';

/** Request pieces shared by the volatility endpoints. */

const dateRange = (description: string) => ({
  type: 'object',
  description,
  properties: { startDate: { type: ['string', 'null'], format: 'date' }, endDate: { type: ['string', 'null'], format: 'date' } },
});

/** The filter object of the snapshot endpoints; deltaRange only on term-structure. */
export function surfaceFilterSchema(withDelta: boolean): JsonSchema {
  return {
    ...fragments.filter,
    properties: {
      ticker: tickerSchema('Underlying ticker (alias tickers). Required.'),
      expirationDates: fragments.stringOrList('Expiration dates yyyy-MM-dd (alias expirationDate); OR-combined. Excludes expirationDateRange.'),
      expirationDateRange: dateRange('Expirations {startDate, endDate}, inclusive.'),
      strikePrices: { type: ['number', 'array'], items: { type: 'number' }, description: 'Strikes in dollars (alias strikePrice). Excludes strikePriceRange.' },
      strikePriceRange: fragments.range('Strikes {min, max} in dollars, inclusive.'),
      moneyTypes: fragments.stringOrList('ATM, ITM or OTM at the snapshot price (alias moneyType); ATM is within 0.5 % of the strike.'),
      ...(withDelta ? { deltaRange: fragments.range('Black-Scholes delta {min, max}, each bound within -1 to 1.') } : {}),
    },
  };
}

export const greekModeSchema: JsonSchema = { enum: [...GREEK_MODES], description: 'The greek of the exposure: CHARM, DELTA, GAMMA or VANNA.' };
export const representationModeSchema: JsonSchema = {
  enum: [...REPRESENTATION_MODES],
  description: 'RAW = OI x greek x 100; PER_ONE_DOLLAR_MOVE = RAW x S; PER_ONE_PERCENT_MOVE = RAW x S x 0.01 S (S: the snapshot underlying price).',
};
