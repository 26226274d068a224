import net from 'net';
import { ephemeralPortsFrom, freePort } from '../../services/stack/process';
import { CLUSTER_DEV_PORTS, DEV_PORTS } from '../../services/stack/stack';

/**
 * The test stacks' ports are picked below the kernel's ephemeral range: a port picked inside it
 * could go to some client's outgoing connection before Kafka binds it ("Address already in use").
 */
describe('freePort', () => {
  const listen = (port: number) =>
    new Promise<net.Server>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve(srv));
    });
  const close = (srv: net.Server) => new Promise((r) => srv.close(r));

  it('picks distinct ports below the ephemeral range and above every development port, each bindable', async () => {
    const low = ephemeralPortsFrom();
    const devPorts = [...Object.values(DEV_PORTS), ...Object.values(CLUSTER_DEV_PORTS)];
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(40);
    for (const p of ports) {
      expect(p).toBeLessThan(low);
      expect(p).toBeGreaterThan(Math.max(...devPorts));
    }
    await close(await listen(ports[0]));
  });

  it('skips a port something listens on', async () => {
    // Two neighbouring ports, the first held and the second free: every pick must be the second.
    for (;;) {
      const held = await listen(0);
      const port = (held.address() as net.AddressInfo).port;
      const next = await listen(port + 1).catch(() => null);
      if (!next) {
        await close(held);
        continue;
      }
      await close(next);
      try {
        expect(await freePort({ from: port, to: port + 1 })).toBe(port + 1);
      } finally {
        await close(held);
      }
      return;
    }
  });

  it('reads the ephemeral range of this kernel', () => {
    expect(ephemeralPortsFrom()).toBeGreaterThan(1024);
  });
});
