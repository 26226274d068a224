import { spawn } from 'child_process';
import fs from 'fs';
import net from 'net';
import { tiedToParent } from './parent-death';

/** A daemon the launcher started: its pid file and log live in the component's data folder. */
export interface DaemonSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  pidFile: string;
  logFile: string;
  /** A string that must appear in /proc/<pid>/cmdline, so a recycled pid is not mistaken for ours. */
  marker: string;
  /**
   * Killed when the process that starts it exits (parent-death.ts): the test stacks. Without it
   * the daemon outlives its starter until `stack down`: the development stacks, warm for the next start.
   */
  dieWithParent?: boolean;
}

export function readPid(pidFile: string): number | null {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function isAlive(pid: number, marker?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!marker) return true;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
}

export function runningPid(spec: Pick<DaemonSpec, 'pidFile' | 'marker'>): number | null {
  const pid = readPid(spec.pidFile);
  return pid !== null && isAlive(pid, spec.marker) ? pid : null;
}

/**
 * Starts the daemon in a session of its own, so a Ctrl-C in the starter's terminal does not reach
 * it: it stops with `stack down`, or, with `dieWithParent`, when its starter exits.
 */
export function startDaemon(spec: DaemonSpec): number {
  const out = fs.openSync(spec.logFile, 'a');
  const [command, args] = spec.dieWithParent ? tiedToParent(spec.command, spec.args, 'KILL') : [spec.command, spec.args];
  const child = spawn(command, args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  if (!child.pid) throw new Error(`${spec.name}: could not spawn ${spec.command}`);
  // How it ended, for the start-up error: a daemon killed by a signal leaves an empty log.
  exits.delete(spec.logFile);
  child.once('exit', (code, signal) => exits.set(spec.logFile, signal ? `killed by ${signal}` : `exit code ${code}`));
  child.unref();
  fs.writeFileSync(spec.pidFile, String(child.pid));
  return child.pid;
}

/** How the daemon last started with this log file ended, when it ended while this process watched. */
const exits = new Map<string, string>();

export async function stopDaemon(spec: Pick<DaemonSpec, 'pidFile' | 'marker'>, graceMs = 15_000): Promise<boolean> {
  const pid = runningPid(spec);
  if (pid === null) {
    fs.rmSync(spec.pidFile, { force: true });
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(pid)) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
  fs.rmSync(spec.pidFile, { force: true });
  return true;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function tailFile(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The first port of the kernel's ephemeral range. The kernel hands the ports from there up to
 * every outgoing connection, so a port picked there can be taken by some client's connection
 * before the daemon it was picked for binds it (Kafka then exits with "Address already in use").
 */
export function ephemeralPortsFrom(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Above every fixed development port (stack.ts: 16379-29097), below the usual ephemeral range. */
const PICK_FROM = 30000;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on the loopback address for a daemon to bind later: a random one that binds now,
 * below the ephemeral range (see ephemeralPortsFrom), never one this process handed out before.
 * Only where that range leaves no room does the kernel pick (port 0).
 */
export async function freePort(range: { from: number; to: number } = { from: PICK_FROM, to: ephemeralPortsFrom() - 1 }): Promise<number> {
  const size = range.to - range.from + 1;
  for (let attempt = 0; size > 0 && attempt < Math.min(200, size * 4); attempt++) {
    const port = range.from + Math.floor(Math.random() * size);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    sock.setTimeout(1000);
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

/** Polls `check` until it resolves true, the daemon dies, or the timeout passes. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs: number; alive?: () => boolean; logFile?: string },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    // Asked twice, a moment apart: liveness reads a pid file and /proc, and a read that races a
    // write there must not fail a start that is going well.
    if (opts.alive && !opts.alive() && (await sleep(500).then(() => !opts.alive!()))) {
      const how = exits.get(opts.logFile ?? '');
      throw new Error(`${what} exited during start-up${how ? ` (${how})` : ''}. Last lines of ${opts.logFile}:\n${tailFile(opts.logFile ?? '')}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} not ready after ${opts.timeoutMs} ms. Last lines of ${opts.logFile}:\n${tailFile(opts.logFile ?? '')}`);
    }
    await sleep(250);
  }
}
