/**
 * Exchange notification types, verbatim from the API contract (shared/spec/market-data-api.md,
 * "Exchange notification types"), with their meaning.
 */
export const NOTIFICATION_TYPES = {
  C3: 'issuer news not forthcoming; quoting and trading to resume',
  C4: 'qualifications halt ended, maintenance requirements met; trading resumes',
  C9: 'qualifications halt concluded, filings met; quotes and trades resume',
  C11: 'halt ended by another regulatory authority; quotes and trades resume',
  D: 'security deleted from the listing/consolidated quote system',
  IPO1: 'IPO issue not yet trading',
  IPOQ: 'IPO security released for quotation',
  IPOE: 'IPO positioning window extended',
  H4: 'non-compliance',
  H9: 'not current',
  H10: 'SEC trading suspension',
  H11: 'regulatory concern',
  LUDP: 'volatility trading pause',
  LUDS: 'volatility trading pause, straddle condition',
  M: 'volatility trading pause',
  M1: 'corporate action',
  M2: 'quotation not available',
  MWC0: 'market-wide circuit breaker halt, carried over from previous day',
  MWC1: 'market-wide circuit breaker halt, level 1',
  MWC2: 'market-wide circuit breaker halt, level 2',
  MWC3: 'market-wide circuit breaker halt, level 3',
  MWCQ: 'market-wide circuit breaker resumption',
  O1: 'operations halt; contact market operations',
  R1: 'new issue available',
  R2: 'issue available',
  R4: 'qualifications issues reviewed or resolved; quoting and trading to resume',
  R9: 'filing requirements satisfied or resolved; quoting and trading to resume',
  REG_SHO: 'short-sale regulation notice',
  T1: 'news pending',
  T2: 'news released',
  T3: 'news and resumption times',
  T5: 'single-stock trading pause in effect',
  T6: 'extraordinary market activity',
  T7: 'single-stock trading pause / quotation-only period',
  T8: 'exchange-traded fund',
  T12: 'additional information requested by the exchange',
} as const;

export type NotificationType = keyof typeof NOTIFICATION_TYPES;
export const NOTIFICATION_TYPE_CODES = Object.keys(NOTIFICATION_TYPES) as NotificationType[];

export function isNotificationType(x: unknown): x is NotificationType {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(NOTIFICATION_TYPES, x);
}
