/**
 * Name normalization (spec "Name normalization"): field names in filters, sorts, expressions and
 * projections ignore case, separators and whitespace, so STRIKE_PRICE, strikePrice,
 * strike_price, strike-price and "strike price" all give STRIKEPRICE.
 */
export function normalizeName(s: string): string {
  return s.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
}

/**
 * Normalization of enumeration values given as canonical names or display strings. The symbol
 * forms of display strings spell out: "&" is AND (M&A, Movers & Shakers), "#" is NUMBER
 * (Econ #s). A double and a single underscore are both separators, so they compare equal.
 */
export function normalizeEnumText(s: string): string {
  return normalizeName(s.replace(/&/g, 'AND').replace(/#/g, 'NUMBER'));
}

/**
 * A lookup from normalized spellings to canonical constants. Input-only aliases (the trade-side
 * short codes AA, A, M, B, BB) resolve to their constant and are never listed as values.
 */
export class EnumLookup {
  private readonly map = new Map<string, string>();
  constructor(
    readonly label: string,
    readonly values: readonly string[],
    aliases: Readonly<Record<string, string>> = {},
  ) {
    const entries: [string, string][] = [...values.map((v): [string, string] => [v, v]), ...Object.entries(aliases)];
    for (const [spelling, v] of entries) {
      const k = normalizeEnumText(spelling);
      const prev = this.map.get(k);
      if (prev && prev !== v) throw new Error(`${label}: ${prev} and ${v} normalize alike`);
      this.map.set(k, v);
    }
  }

  resolve(input: string): string | undefined {
    return this.map.get(normalizeEnumText(input));
  }
}
