import WebSocket from 'ws';

/**
 * A full garbage collection in a child process started with `--inspect=127.0.0.1:0`, through its
 * inspector (the DevTools protocol's HeapProfiler.collectGarbage). A memory figure read after it
 * is what the process retains; read without it, the old generation also holds garbage that the
 * next major collection would free, and swings by tens of MiB with when that collection ran.
 */
export async function collectGarbage(childOutput: string): Promise<void> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(childOutput)?.[1];
  if (!url) throw new Error('the process was not started with --inspect (no "Debugger listening on" line in its output)');
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        const reply = JSON.parse(String(data)) as { id?: number; error?: { message: string } };
        if (reply.id !== 1) return;
        if (reply.error) reject(new Error(`HeapProfiler.collectGarbage: ${reply.error.message}`));
        else resolve();
      });
      ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    });
  } finally {
    ws.close();
  }
}
