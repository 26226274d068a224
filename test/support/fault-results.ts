import fs from 'fs';
import path from 'path';

/** Where `npm run faults` keeps its figures (docs/reliability.md quotes them). */
export const FAULT_RESULTS = path.join(__dirname, '..', 'bench', 'results', 'faults.json');

/** Merges figures into the fault results, each entry replacing the one of the same name. */
export function writeFaultResults(entries: Record<string, unknown>): void {
  const previous = fs.existsSync(FAULT_RESULTS) ? JSON.parse(fs.readFileSync(FAULT_RESULTS, 'utf8')) : {};
  fs.writeFileSync(FAULT_RESULTS, JSON.stringify({ ...previous, ...entries, measuredAt: new Date().toISOString() }, null, 2) + '\n');
}

/**
 * The same, only when the run is `npm run faults` (which sets MDQ_FAULT_RESULTS): the tests it
 * reuses from `npm test` (hostile bodies, the shared quota) record their figures then, and a plain
 * `npm test` leaves the file alone.
 */
export function recordFaultResults(entries: Record<string, unknown>): void {
  if (process.env.MDQ_FAULT_RESULTS) writeFaultResults(entries);
}
