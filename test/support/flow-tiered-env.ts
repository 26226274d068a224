/** Imported first by test/e2e/flow-aggregations-warm.test.ts: the shared suite then projects with one hot session. */
process.env.MDQ_TEST_FLOW_TIERED = '1';
