// Integration tests wait on a real broker and real consumer-group rebalances; on the cluster
// profile every write is replicated to three brokers and scatter reads go to three masters.
jest.setTimeout(process.env.MDQ_STACK_PROFILE === 'cluster' ? 240_000 : 120_000);
