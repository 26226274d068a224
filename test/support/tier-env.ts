/**
 * Runs `run` with the warm tier's options set through the environment, as a deployment sets them
 * (projections/runtime/warm-tier.ts warmTierOptions), and restores them after.
 */
export async function withTierEnv<T>(hot: number, run: () => Promise<T>, quiet = 0): Promise<T> {
  const saved = [process.env.MDQ_HOT_SESSIONS, process.env.MDQ_WARM_QUIET_MESSAGES];
  process.env.MDQ_HOT_SESSIONS = String(hot);
  process.env.MDQ_WARM_QUIET_MESSAGES = String(quiet);
  try {
    return await run();
  } finally {
    [process.env.MDQ_HOT_SESSIONS, process.env.MDQ_WARM_QUIET_MESSAGES] = saved;
    if (saved[0] === undefined) delete process.env.MDQ_HOT_SESSIONS;
    if (saved[1] === undefined) delete process.env.MDQ_WARM_QUIET_MESSAGES;
  }
}
