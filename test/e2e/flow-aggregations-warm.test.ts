/**
 * The flow-aggregation endpoints end to end (flow-aggregations.test.ts, every test of it) with the
 * older session in the warm tier of the flow-aggregates cube and of the prints view: the answers
 * must still equal the brute-force oracle's, read from compressed groups and blocks.
 */
import '../support/flow-tiered-env';
import './flow-aggregations.test';
