import { WebSocket } from 'ws';

/** A realtime socket under test: every message it got, and its close, waited for by condition. */
export interface Realtime {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first message (from `from` on) that `match` accepts, as soon as it arrives. */
  next(match: (m: any) => boolean, from?: number): Promise<any>;
  send(message: unknown): void;
}

/** Opens `path` of the app as a WebSocket; rejects with the HTTP status when the upgrade is refused. */
export function openRealtime(base: string, path: string, headers: Record<string, string> = {}): Promise<Realtime> {
  const url = new URL(path, base.replace(/^http/, 'ws'));
  const ws = new WebSocket(url, { headers });
  const messages: any[] = [];
  const waiters: { match: (m: any) => boolean; from: number; resolve: (m: any) => void }[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data));
    messages.push(m);
    for (const w of [...waiters]) {
      if (messages.length - 1 >= w.from && w.match(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () =>
        reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })),
      );
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        messages,
        closed,
        next: (match, from = 0) => {
          const found = messages.slice(from).find(match);
          if (found) return Promise.resolve(found);
          return new Promise((res) => waiters.push({ match, from, resolve: res }));
        },
        send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
      }),
    );
  });
}

/** The audio of a context's messages, in the order they came. */
export const audioOf = (messages: any[], contextId?: string): Buffer =>
  Buffer.concat(
    messages
      .filter((m) => typeof m.audio === 'string' && (contextId === undefined || m.contextId === contextId))
      .map((m) => Buffer.from(m.audio, 'base64')),
  );
