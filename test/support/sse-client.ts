import http from 'http';

/** One Server-Sent Events message as a client sees it. */
export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body when the server refused the stream (a problem document). */
  refusal?: unknown;
  close(): void;
  /** Resolves when the server ends the stream or the connection drops. */
  ended: Promise<void>;
  socket: import('net').Socket;
  response: http.IncomingMessage;
}

/**
 * Opens a push stream with node's http client and parses its text/event-stream body
 * (WHATWG rules: `field: value` lines, a blank line ends a message, lines starting ':' are comments).
 */
export function openSse(
  url: string,
  o: { key: string; body?: unknown; lastEventId?: string | null; method?: 'GET' | 'POST'; onEvent?: (e: SseEvent) => void },
): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const headers: Record<string, string> = { Authorization: `Bearer ${o.key}`, Accept: 'text/event-stream' };
    if (body) headers['Content-Type'] = 'application/json';
    if (o.lastEventId) headers['Last-Event-ID'] = o.lastEventId;
    const req = http.request(url, { method: o.method ?? (body ? 'POST' : 'GET'), headers, agent: false }, (res) => {
      let endedResolve: () => void = () => undefined;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.on('end', () => endedResolve());
      res.on('close', () => endedResolve());
      res.on('error', () => endedResolve());
      const conn: SseConnection = { status: res.statusCode ?? 0, headers: res.headers, close: () => req.destroy(), ended, socket: req.socket!, response: res };
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            conn.refusal = JSON.parse(text);
          } catch {
            conn.refusal = text;
          }
          resolve(conn);
        });
        return;
      }
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const ev: SseEvent = { event: 'message', id: null, data: '' };
          let any = false;
          for (const line of block.split('\n')) {
            if (!line || line.startsWith(':')) continue;
            const at = line.indexOf(':');
            const field = at < 0 ? line : line.slice(0, at);
            const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
            if (field === 'event') ev.event = value;
            else if (field === 'id') ev.id = value;
            else if (field === 'data') ev.data = ev.data ? `${ev.data}\n${value}` : value;
            else continue;
            any = true;
          }
          if (any) o.onEvent?.(ev);
        }
      });
      resolve(conn);
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}
