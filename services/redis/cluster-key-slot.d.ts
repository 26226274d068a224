// cluster-key-slot (ioredis's own dependency) ships no types: the Redis Cluster slot of a key.
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  export default calculateSlot;
}
