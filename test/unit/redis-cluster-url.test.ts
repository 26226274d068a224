import { formatRedisClusterUrl, parseRedisClusterUrl } from '../../services/redis/cluster-url';

describe('parseRedisClusterUrl', () => {
  it('reads the seed nodes of a redis+cluster URL, in order', () => {
    expect(parseRedisClusterUrl('redis+cluster://127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003')).toEqual([
      { host: '127.0.0.1', port: 7001 },
      { host: '127.0.0.1', port: 7002 },
      { host: '127.0.0.1', port: 7003 },
    ]);
    expect(parseRedisClusterUrl('REDIS+CLUSTER://redis-a.internal:6379/')).toEqual([{ host: 'redis-a.internal', port: 6379 }]);
    expect(parseRedisClusterUrl('redis+cluster://[::1]:7000, 10.0.0.2:7001')).toEqual([
      { host: '::1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
  });

  it('answers null for a single-server URL', () => {
    expect(parseRedisClusterUrl('redis://127.0.0.1:6379')).toBeNull();
    expect(parseRedisClusterUrl('rediss://host:6380/2')).toBeNull();
    expect(parseRedisClusterUrl('redis+clusterx://h:1')).toBeNull();
  });

  it.each([
    'redis+cluster://',
    'redis+cluster://host',
    'redis+cluster://h:1,',
    'redis+cluster://h:0',
    'redis+cluster://h:65536',
    'redis+cluster://u:p@h:1',
    'redis+cluster://h:1/0',
  ])('refuses the malformed %s, naming the form', (url) => {
    expect(() => parseRedisClusterUrl(url)).toThrow(/redis\+cluster:\/\/host:port/);
  });

  it('is the inverse of formatRedisClusterUrl', () => {
    const nodes = [
      { host: '127.0.0.1', port: 1 },
      { host: '::1', port: 65535 },
      { host: 'a.b', port: 6379 },
    ];
    expect(parseRedisClusterUrl(formatRedisClusterUrl(nodes))).toEqual(nodes);
    expect(() => formatRedisClusterUrl([])).toThrow(/at least one node/);
  });
});
