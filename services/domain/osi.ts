/**
 * OSI option symbols (OCC Options Symbology Initiative): 21 characters — the root left-aligned
 * and space-padded to 6, the expiration as yymmdd, C or P, and the strike times 1000 as 8 digits.
 * Example: `SPY   261120C00600000` is the SPY 2026-11-20 600 call.
 */

export type ContractRight = 'CALL' | 'PUT';

export interface OsiParts {
  root: string;
  /** LocalDate yyyy-MM-dd (years 2000-2099) */
  expiration: string;
  right: ContractRight;
  strike: number;
}

const OSI = /^([A-Z0-9]{1,6}) *(\d{2})(\d{2})(\d{2})([CP])(\d{8})$/;

export function osiSymbol(root: string, expiration: string, right: ContractRight, strike: number): string {
  const yymmdd = expiration.slice(2, 4) + expiration.slice(5, 7) + expiration.slice(8, 10);
  return root.padEnd(6, ' ') + yymmdd + (right === 'CALL' ? 'C' : 'P') + String(Math.round(strike * 1000)).padStart(8, '0');
}

/** The parts of a well-formed OSI symbol, or null (wrong length, layout, or impossible date). */
export function parseOsi(osi: string): OsiParts | null {
  if (typeof osi !== 'string' || osi.length !== 21) return null;
  const m = OSI.exec(osi);
  if (!m || osi.slice(0, 6).trimEnd() !== m[1]) return null;
  const expiration = `20${m[2]}-${m[3]}-${m[4]}`;
  const d = new Date(`${expiration}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== expiration) return null;
  const strike = Number(m[6]) / 1000;
  if (strike <= 0) return null;
  return { root: m[1], expiration, right: m[5] === 'C' ? 'CALL' : 'PUT', strike };
}
