/**
 * Float noise out of every JSON answer, at the one place answers become bytes. A double carries 15
 * significant decimal digits exactly; a number written with more is arithmetic around a value of
 * at most 15 (17.619999999999997 is 17.62, 4172297999999.9995 is 4172298000000): where rounding to
 * 15 significant digits drops such a run of nines or zeros, the number is written rounded. Dollar
 * values computed from cent prices come out in whole cents; a number whose digits are real
 * (8.067765567765568) keeps them all. Strings (cursors, ids) are copied untouched.
 */

// A JSON string (skipped), or a number literal with at least 16 digits.
const TOKEN = /"(?:[^"\\]|\\.)*"|\d[\d.]{15,}(?:[eE][+-]?\d+)?/g;

export function withoutFloatNoise(json: string): string {
  // Noise shows as a run of nines or zeros; an answer without one (most) is returned at the cost
  // of two substring searches.
  if (!json.includes('99999999') && !json.includes('00000000')) return json;
  return json.replace(TOKEN, (t) => (t.charCodeAt(0) === 34 ? t : significant15(t)));
}

const significant = (literal: string) =>
  literal
    .replace(/[eE].*$/, '')
    .replace(/\D/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '').length;

/** The literal at 15 significant digits when that drops a run of noise (leaves at most 13), else as it is. */
function significant15(literal: string): string {
  if (significant(literal) <= 15) return literal;
  const rounded = String(Number(Number(literal).toPrecision(15)));
  return significant(rounded) <= 13 ? rounded : literal;
}
