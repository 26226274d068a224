import { execFileSync } from 'child_process';

/**
 * Processes that die with the process that started them. The kernel does it: Linux's parent-death
 * signal (PR_SET_PDEATHSIG), set by util-linux's `setpriv --pdeathsig <signal>` before it execs
 * the command, so the command (a JVM, redis-server, node) needs no cooperation and there is no
 * watchdog process to poll or to be killed itself. The signal is sent however the parent ends:
 * Ctrl-C, a CI time-out, SIGKILL, a crash.
 *
 * Two rules follow from how the kernel tracks the parent: spawn from the main thread (the signal
 * is sent when the spawning *thread* exits), and the setting does not pass to the command's own
 * forks (a redis-server's snapshot child finishes its file and exits by itself).
 *
 * setpriv is part of util-linux, installed on every Debian and Ubuntu system. Where it is
 * missing (macOS), commands are started as before and a warning says they will not be tied.
 */

export type DeathSignal = 'KILL' | 'TERM';

let available: boolean | undefined;

export function parentDeathSupported(): boolean {
  if (available === undefined) {
    try {
      execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
      available = process.platform === 'linux';
    } catch {
      available = false;
    }
    if (!available) {
      process.emitWarning('setpriv (util-linux) was not found: processes started here will not stop when this process dies', 'MdqParentDeath');
    }
  }
  return available;
}

/**
 * The command line that runs `command args` and has it receive `signal` when the caller exits.
 * `spawn(...tiedToParent(cmd, args))`; the child's pid is the command's (setpriv execs it).
 */
export function tiedToParent(command: string, args: readonly string[], signal: DeathSignal = 'KILL'): [string, string[]] {
  if (!parentDeathSupported()) return [command, [...args]];
  return ['setpriv', ['--pdeathsig', signal, '--', command, ...args]];
}
