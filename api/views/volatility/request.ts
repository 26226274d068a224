import { GREEK_MODES, REPRESENTATION_MODES } from '../../../services/domain/volatility';
import { tickerSchema } from '../../request/required-ticker';
import { selectorSchemas } from '../../request/time-selectors';
import { fragments, type JsonSchema } from '../../request/validate';

/** Request pieces shared by the volatility endpoints. */

const dateRange = (description: string) => ({
  type: 'object',
  description,
  properties: { startDate: { type: ['string', 'null'], format: 'date' }, endDate: { type: ['string', 'null'], format: 'date' } },
});

/** Which optional filters a snapshot endpoint's filter object takes beyond ticker and expirations. */
export interface SurfaceFilterOptions {
  strikes?: boolean;
  moneyTypes?: boolean;
  deltaRange?: boolean;
  contractTypes?: boolean;
}

/** The filter object of the snapshot endpoints; `true`: term-structure's (with deltaRange), `false`: exposure-by-strike's. */
export function surfaceFilterSchema(opts: boolean | SurfaceFilterOptions): JsonSchema {
  const o: SurfaceFilterOptions = typeof opts === 'boolean' ? { strikes: true, moneyTypes: true, deltaRange: opts } : opts;
  return {
    ...fragments.filter,
    properties: {
      ticker: tickerSchema('Underlying ticker (alias tickers). Required.'),
      ...(o.contractTypes ? { contractTypes: fragments.stringOrList('CALL or PUT (alias contractType); OR-combined.') } : {}),
      expirationDates: fragments.stringOrList('Expiration dates yyyy-MM-dd (alias expirationDate); OR-combined. Excludes expirationDateRange.'),
      expirationDateRange: dateRange('Expirations {startDate, endDate}, inclusive.'),
      ...(o.strikes
        ? {
            strikePrices: {
              type: ['number', 'array'],
              items: { type: 'number' },
              description: 'Strikes in dollars (alias strikePrice). Excludes strikePriceRange.',
            },
            strikePriceRange: fragments.range('Strikes {min, max} in dollars, inclusive.'),
          }
        : {}),
      ...(o.moneyTypes
        ? { moneyTypes: fragments.stringOrList('ATM, ITM or OTM at the snapshot price (alias moneyType); ATM is within 0.5 % of the strike.') }
        : {}),
      ...(o.deltaRange ? { deltaRange: fragments.range('Black-Scholes delta {min, max}, each bound within -1 to 1.') } : {}),
    },
  };
}

export const greekModeSchema: JsonSchema = { enum: [...GREEK_MODES], description: 'The greek of the exposure: CHARM, DELTA, GAMMA or VANNA.' };
export const representationModeSchema: JsonSchema = {
  enum: [...REPRESENTATION_MODES],
  description: 'RAW = OI x greek x 100; PER_ONE_DOLLAR_MOVE = RAW x S; PER_ONE_PERCENT_MOVE = RAW x S x 0.01 S (S: the snapshot underlying price).',
};

/** The request of the exposure endpoints (by strike, by expiration): their filter differs. */
export function exposureRequestSchema(filter: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['filter', 'greekMode', 'representationMode'],
    properties: {
      filter,
      greekMode: greekModeSchema,
      representationMode: representationModeSchema,
      filterExpression: fragments.filterExpression,
      ...selectorSchemas(['sessionDate', 'snapshotTime'], 'Default: the latest snapshot.'),
    },
  };
}

/** The exposure endpoints' one wire shape; `mapDescription` says what the strike keys are. */
export function exposureResponseSchema(mapDescription: string): JsonSchema {
  return {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: {
        type: 'object',
        description: 'Ticker -> {exposureMap, stockPrice}.',
        additionalProperties: {
          type: 'object',
          required: ['exposureMap', 'stockPrice'],
          additionalProperties: false,
          properties: {
            stockPrice: { type: 'number' },
            exposureMap: {
              type: 'object',
              description: mapDescription,
              additionalProperties: {
                type: 'object',
                additionalProperties: {
                  type: 'object',
                  additionalProperties: false,
                  properties: { callExposure: { type: 'number' }, putExposure: { type: 'number' } },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** The request of the snapshot-surface endpoints (term-structure, volatility-skew): a filter and a snapshot. */
export function surfaceRequestSchema(filter: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: {
      filter,
      ...selectorSchemas(['sessionDate', 'snapshotTime'], 'Default: the latest snapshot.'),
    },
  };
}

/** Their response: the snapshot's price and expiration -> strike -> {CALL, PUT} -> `leg`. */
export function surfaceResponseSchema(stockPriceDescription: string, dataDescription: string, leg: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['stockPrice', 'data'],
    additionalProperties: false,
    properties: {
      stockPrice: { type: 'number', description: stockPriceDescription },
      data: {
        type: 'object',
        description: dataDescription,
        additionalProperties: {
          type: 'object',
          additionalProperties: { type: 'object', additionalProperties: false, properties: { CALL: leg, PUT: leg } },
        },
      },
    },
  };
}
