/**
 * Where a test file's time goes, when MDQ_TEST_PHASES names a folder (docs/testing.md): module
 * load (imports and fixtures built at the top of the file), then wall time in each phase — topic
 * and schema setup, producing fixtures, projector start (its consumer group join), waiting for a
 * projection to catch up, reading topics back, API start, any other wait (`waitFor`: processes,
 * groups, jobs) — and the rest, which is the tests' own requests and assertions. A busy period
 * counts once, under the phase that opened it, so nested or parallel phases are not counted twice.
 * Off (and free) unless the variable is set; phase-profile-setup.ts writes each file's record and
 * the summary reporter prints the table.
 */

export const phaseDir = process.env.MDQ_TEST_PHASES;
export const totals = new Map<string, number>();
let active = 0;
let since = 0;
let current = '';

/** Runs `fn` as phase `name` of the current test file. */
export async function phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!phaseDir) return fn();
  if (active++ === 0) {
    since = Date.now();
    current = name;
  }
  try {
    return await fn();
  } finally {
    if (--active === 0) totals.set(current, (totals.get(current) ?? 0) + Date.now() - since);
  }
}
