/**
 * Float noise out of every JSON answer, at the one place answers become bytes. A double carries 15
 * significant decimal digits exactly; a number written with more is arithmetic around a value of
 * at most 15 (17.619999999999997 is 17.62, 4172297999999.9995 is 4172298000000): a number of more
 * than 15 significant digits with a run of eight nines or zeros is written at 15. Dollar
 * values computed from cent prices come out in whole cents; a number whose digits are real
 * (8.067765567765568) keeps them all. Strings (cursors, ids) are copied untouched.
 */

// A JSON string (skipped), or a number literal with at least 16 digits.
const TOKEN = /"(?:[^"\\]|\\.)*"|\d[\d.]{15,}(?:[eE][+-]?\d+)?/g;

// Eight nines or zeros in a row, a decimal point allowed among them: the mark of noise.
const RUN = /(?:9\.?){7}9|(?:0\.?){7}0/;

export function withoutFloatNoise(json: string): string {
  // An answer without such a run (most) is returned after one scan.
  if (!RUN.test(json)) return json;
  return json.replace(TOKEN, (t) => (t.charCodeAt(0) === 34 ? t : significant15(t)));
}

const significant = (literal: string) =>
  literal
    .replace(/[eE].*$/, '')
    .replace(/\D/g, '')
    .replace(/^0+/, '').length;

/**
 * Noise is a literal of more than 15 significant digits holding a run of eight nines or zeros (the
 * same RUN the pre-check looks for, so whether a number is rewritten never depends on the rest
 * of the answer); it is written at 15 significant digits. A computed value such as a greek
 * (0.0004547986863112004) keeps every digit it has.
 */
function significant15(literal: string): string {
  if (significant(literal) <= 15 || !RUN.test(literal)) return literal;
  return String(Number(Number(literal).toPrecision(15)));
}
