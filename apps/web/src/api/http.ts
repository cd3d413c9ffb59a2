import { ApiError, parseRetryAfter } from './errors';
import type { RequestQueue } from './queue';

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: FormData;
  /** Only the calls that set the session up skip the queue. */
  bypassQueue?: boolean;
  signal?: AbortSignal;
  /** Resolve with the unread Response (audio, streamed bodies); errors still become ApiError. */
  raw?: boolean;
  /** A precondition (`if-match`: the ETag a write was prepared from). */
  ifMatch?: string;
}

export interface HttpDeps {
  queue: RequestQueue;
  getSid: () => string | null;
  getLang: () => string;
  clientVersion: string;
  baseUrl?: string;
  fetchImpl?: typeof fetch;
}

export type Http = <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;

/** Every request carries from/cv/lang and the session header; failures become ApiError. */
export function buildUrl(base: string, path: string, common: Record<string, string>, query?: Record<string, QueryValue>): string {
  const url = new URL(path, base);
  for (const [k, v] of Object.entries(common)) url.searchParams.set(k, v);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

async function toApiError(res: Response): Promise<ApiError> {
  let code = res.status === 401 ? 'UNAUTHENTICATED' : res.status >= 500 ? 'INTERNAL' : 'UNKNOWN';
  let message = '';
  let requestId = res.headers.get('x-request-id') ?? undefined;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string; request_id?: string } };
    if (body.error) {
      code = body.error.code ?? code;
      message = body.error.message ?? '';
      requestId = body.error.request_id ?? requestId;
    }
  } catch {
    // Not JSON (a proxy's error page): keep the status-derived code.
  }
  return new ApiError({
    status: res.status,
    code,
    message,
    requestId,
    retryAfter: parseRetryAfter(res.headers.get('retry-after')),
  });
}

export function createHttp(deps: HttpDeps): Http {
  const doFetch = deps.fetchImpl ?? ((input, init) => fetch(input, init));

  async function send<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    const url = buildUrl(
      deps.baseUrl ?? window.location.origin,
      path,
      { from: 'web', cv: deps.clientVersion, lang: deps.getLang() },
      options.query,
    );
    const headers: Record<string, string> = { accept: options.raw ? '*/*' : 'application/json' };
    const sid = deps.getSid();
    if (sid) headers['x-sid'] = sid;
    if (options.ifMatch) headers['if-match'] = options.ifMatch;
    let body: BodyInit | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body, signal: options.signal, credentials: 'same-origin' });
    } catch (cause) {
      if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
      throw new ApiError({ status: 0, code: 'NETWORK', message: '' });
    }
    if (!res.ok) throw await toApiError(res);
    if (options.raw) return res as T;
    if (res.status === 204) return undefined as T;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) return (await res.json()) as T;
    return (await res.text()) as T;
  }

  return <T>(method: string, path: string, options: RequestOptions = {}) =>
    options.bypassQueue ? send<T>(method, path, options) : deps.queue.enqueue(() => send<T>(method, path, options));
}
