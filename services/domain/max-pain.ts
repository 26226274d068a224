/**
 * Max pain of one expiration's chain (spec "Max Pain", vendor notes 2.7): for each listed strike K
 * taken as the settlement price, what option writers would owe holders there,
 *
 *   callIntrinsicValue(K) = sum over calls of openInterest * max(0, K - strike) * 100
 *   putIntrinsicValue(K)  = sum over puts  of openInterest * max(0, strike - K) * 100
 *
 * and the max-pain strike, where writers owe the least (the minimum of the two summed, the
 * standard definition). Ties go to the lowest such strike, so the answer never depends on order.
 */

/** Contracts per option (the deliverable of a standard US equity option). */
export const CONTRACT_MULTIPLIER = 100;

export interface StrikeOpenInterest {
  strike: number;
  call: number;
  put: number;
}

export interface MaxPainCell {
  strike: number;
  callIntrinsicValue: number;
  putIntrinsicValue: number;
}

export interface MaxPain {
  /** One cell per strike, ascending. */
  cells: MaxPainCell[];
  maxPainStrike: number;
}

/** Null for a chain without strikes. */
export function maxPain(chain: readonly StrikeOpenInterest[]): MaxPain | null {
  if (!chain.length) return null;
  const strikes = [...chain].sort((a, b) => a.strike - b.strike);
  const cells = strikes.map(({ strike: k }) => {
    let call = 0;
    let put = 0;
    for (const s of strikes) {
      if (s.strike < k) call += s.call * (k - s.strike) * CONTRACT_MULTIPLIER;
      else if (s.strike > k) put += s.put * (s.strike - k) * CONTRACT_MULTIPLIER;
    }
    // Strikes are dollars and cents: rounding to cents removes binary floating-point noise (2.55 - 2.5).
    return { strike: k, callIntrinsicValue: cents(call), putIntrinsicValue: cents(put) };
  });
  let best = cells[0];
  for (const c of cells) if (c.callIntrinsicValue + c.putIntrinsicValue < best.callIntrinsicValue + best.putIntrinsicValue) best = c;
  return { cells, maxPainStrike: best.strike };
}

const cents = (v: number) => Math.round(v * 100) / 100;

/** A strike as a response key: dollars with at least one decimal ("215.0", "212.5"). */
export function strikeKey(strike: number): string {
  return Number.isInteger(strike) ? strike.toFixed(1) : String(strike);
}

/**
 * The max-pain answer of a chain without its stockPrice, as the response's JSON text up to it:
 * `"data":{...},"maxPainStrikePrice":K`. Null when no strike has open interest (no answer). The
 * open-interest projection stores it per session and expiration, so a request only appends the
 * session's price.
 */
export function maxPainJson(chain: readonly StrikeOpenInterest[]): string | null {
  const pain = chain.some((c) => c.call > 0 || c.put > 0) ? maxPain(chain) : null;
  if (!pain) return null;
  const data: Record<string, { callIntrinsicValue: number; putIntrinsicValue: number }> = {};
  for (const c of pain.cells) data[strikeKey(c.strike)] = { callIntrinsicValue: c.callIntrinsicValue, putIntrinsicValue: c.putIntrinsicValue };
  return `"data":${JSON.stringify(data)},"maxPainStrikePrice":${JSON.stringify(pain.maxPainStrike)}`;
}
