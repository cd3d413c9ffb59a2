import { Redis } from 'ioredis';
import { newId } from './ids.js';

/**
 * Tells every process of a deployment that something happened (an account was disabled, a setting changed): handlers
 * in this process run at once, in the others when the message arrives through Redis (one pub/sub channel under
 * `REDIS_PREFIX`). Without Redis there is one process, and the local handlers are all there is. Delivery is at most
 * once, to the processes listening at that moment: what must hold after a restart is in the database too.
 */
export interface Broadcast {
  /** Runs this process's handlers of `topic`, then sends `message` to the other processes. */
  publish(topic: string, message: string): Promise<void>;
  /** Calls `handler` with each message of `topic`, from this process or another; returns the unsubscribe. */
  on(topic: string, handler: (message: string) => void): () => void;
  close(): Promise<void>;
}

type Handlers = Map<string, Set<(message: string) => void>>;

function deliver(handlers: Handlers, topic: string, message: string, onError: (err: unknown) => void): void {
  for (const handler of handlers.get(topic) ?? []) {
    try {
      handler(message);
    } catch (err) {
      onError(err);
    }
  }
}

function subscribe(handlers: Handlers, topic: string, handler: (message: string) => void): () => void {
  let set = handlers.get(topic);
  if (!set) handlers.set(topic, (set = new Set()));
  set.add(handler);
  return () => set.delete(handler);
}

/** One process: the handlers are called in place. */
export function localBroadcast(onError: (err: unknown) => void = () => {}): Broadcast {
  const handlers: Handlers = new Map();
  return {
    publish(topic, message) {
      deliver(handlers, topic, message, onError);
      return Promise.resolve();
    },
    on: (topic, handler) => subscribe(handlers, topic, handler),
    close: () => Promise.resolve(),
  };
}

/**
 * Several processes sharing Redis: a connection of its own subscribes to `<prefix>broadcast` (subscribed before this
 * resolves when Redis answers, so a process answers requests only once it hears the others), another publishes. A message carries the
 * process that sent it, which skips it on the way back (its handlers already ran).
 */
export async function redisBroadcast(
  url: string,
  prefix: string,
  onError: (err: unknown) => void = () => {},
): Promise<Broadcast> {
  const channel = `${prefix}broadcast`;
  const origin = newId('request');
  const handlers: Handlers = new Map();
  const pub = new Redis(url, { maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { maxRetriesPerRequest: 2 });
  pub.on('error', onError);
  sub.on('error', onError);
  sub.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    let parsed: { origin?: unknown; topic?: unknown; message?: unknown };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch (err) {
      return onError(err);
    }
    const { topic, message } = parsed;
    if (parsed.origin === origin || typeof topic !== 'string' || typeof message !== 'string') return;
    deliver(handlers, topic, message, onError);
  });
  // Redis unreachable at start: the process starts all the same (`/readyz` names redis) and subscribes once Redis
  // answers; every later reconnection resubscribes on its own.
  sub.on('ready', () => void sub.subscribe(channel).catch(onError));
  try {
    await sub.subscribe(channel);
  } catch (err) {
    onError(err);
  }
  return {
    async publish(topic, message) {
      deliver(handlers, topic, message, onError);
      // At most once: what must hold is in the database already, so Redis down loses the message, not the request.
      await pub.publish(channel, JSON.stringify({ origin, topic, message })).catch(onError);
    },
    on: (topic, handler) => subscribe(handlers, topic, handler),
    async close() {
      pub.disconnect();
      sub.disconnect();
      await Promise.resolve();
    },
  };
}
