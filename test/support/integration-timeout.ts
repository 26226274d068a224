// Integration tests wait on a real broker and real consumer-group rebalances.
jest.setTimeout(120_000);
