import { buildUrl } from '../api/http';
import { getSid } from '../api/storage';
import { osFromUserAgent } from '../api/device';
import { CLIENT_VERSION } from '../version';

/** An event never holds anything up: it gives up after this long, and its failure is ignored. */
export const EVENT_TIMEOUT_MS = 5000;
/** Errors reported per page load at most: a render loop must not flood the server. */
const MAX_ERRORS = 20;
const DETAIL_MAX = 512;

export interface StatsDeps {
  fetchImpl?: typeof fetch;
  baseUrl?: string;
  getSid?: () => string | null;
  getLang: () => string;
  userAgent?: string;
  timeoutMs?: number;
}

/**
 * Client events through `POST /stats/api/{type}/{event}`: page views and caught errors. Sent outside the
 * request queue (the page never waits for them), with a 5 s timeout; a failure is swallowed.
 */
export type Stats = ReturnType<typeof createStats>;

export function createStats(deps: StatsDeps) {
  let errors = 0;
  let lastView: string | null = null;

  function send(type: string, event: string, detail?: string): Promise<void> {
    try {
      const doFetch = deps.fetchImpl ?? ((input, init) => fetch(input, init));
      const url = buildUrl(
        deps.baseUrl ?? window.location.origin,
        `/stats/api/${encodeURIComponent(type)}/${encodeURIComponent(event)}`,
        { from: 'web', cv: CLIENT_VERSION, lang: deps.getLang() },
        { os: osFromUserAgent(deps.userAgent ?? navigator.userAgent) },
      );
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const sid = (deps.getSid ?? getSid)();
      if (sid) headers['x-sid'] = sid;
      const body = JSON.stringify({ channel: 'def_web', ...(detail ? { detail: detail.slice(0, DETAIL_MAX) } : {}) });
      return doFetch(url, {
        method: 'POST',
        headers,
        body,
        keepalive: true,
        credentials: 'same-origin',
        signal: AbortSignal.timeout(deps.timeoutMs ?? EVENT_TIMEOUT_MS),
      }).then(
        () => undefined,
        () => undefined,
      );
    } catch {
      return Promise.resolve();
    }
  }

  return {
    /** One view per page: the same path twice in a row (a re-render, a query change) counts once. */
    pageView(path: string): Promise<void> {
      if (path === lastView) return Promise.resolve();
      lastView = path;
      return send('page', 'view', path);
    },
    error(error: unknown): Promise<void> {
      if (errors >= MAX_ERRORS) return Promise.resolve();
      errors += 1;
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return send('web', 'error', text);
    },
  };
}

/** Counts every route the console shows, the first one included. */
export function trackRouter(
  stats: Stats,
  router: {
    state: { location: { pathname: string } };
    subscribe(fn: (state: { location: { pathname: string } }) => void): () => void;
  },
): () => void {
  void stats.pageView(router.state.location.pathname);
  return router.subscribe((state) => void stats.pageView(state.location.pathname));
}

/** Errors nobody caught (a failed event handler, a rejected promise) are reported too. */
export function trackUncaughtErrors(stats: Stats, target: Window = window): void {
  target.addEventListener('error', (e) => void stats.error(e.error ?? e.message));
  target.addEventListener('unhandledrejection', (e) => void stats.error(e.reason));
}
