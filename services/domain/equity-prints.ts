/**
 * The condition code of an off-exchange print published in the simulator's history sample (the
 * daily tier's dark prints, ingest/simulator/dark-pool-sample.ts). Not a consolidated-tape code:
 * it tells readers the print repeats one of the session's tape, so a session that has its tape
 * counts it once (projections/equities/).
 */
export const HISTORY_SAMPLE_CONDITION = 'HS';
