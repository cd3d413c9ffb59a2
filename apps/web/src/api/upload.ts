import { CLIENT_VERSION } from '../version';
import { ApiError, parseRetryAfter } from './errors';
import { buildUrl, type QueryValue } from './http';

/** The part of XMLHttpRequest an upload uses (tests hand in their own). */
export interface UploadXhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: FormData): void;
  abort(): void;
  getResponseHeader(name: string): string | null;
  readonly status: number;
  readonly responseText: string;
  readonly upload: { onprogress: ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadDeps {
  xhr: () => UploadXhr;
  baseUrl: string;
  sid: string | null;
  lang: string;
}

/** The server's error body as an ApiError, as `http` makes it from a fetch Response. */
export function xhrError(status: number, responseText: string, header: (name: string) => string | null): ApiError {
  let code = status === 401 ? 'UNAUTHENTICATED' : status >= 500 ? 'INTERNAL' : status === 0 ? 'NETWORK' : 'UNKNOWN';
  let message = '';
  let requestId = header('x-request-id') ?? undefined;
  try {
    const body = JSON.parse(responseText) as { error?: { code?: string; message?: string; request_id?: string } };
    if (body.error) {
      code = body.error.code ?? code;
      message = body.error.message ?? '';
      requestId = body.error.request_id ?? requestId;
    }
  } catch {
    // Not JSON: keep the status-derived code.
  }
  return new ApiError({ status, code, message, requestId, retryAfter: parseRetryAfter(header('retry-after')) });
}

export interface FormUpload {
  path: string;
  query?: Record<string, QueryValue>;
  form: FormData;
  /** Bytes of the file in the form: the total when the browser does not know it. */
  size: number;
}

/**
 * POST a multipart form with XMLHttpRequest, whose upload events report real progress (fetch has
 * none for request bodies), with the common query parameters and the session. The answer is parsed
 * as JSON; an error answer comes back as ApiError, a cancel as an AbortError.
 */
export function postForm<T>(
  upload: FormUpload,
  onProgress: (p: UploadProgress) => void,
  deps: UploadDeps,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const url = buildUrl(deps.baseUrl, upload.path, { from: 'web', cv: CLIENT_VERSION, lang: deps.lang }, upload.query);
    const xhr = deps.xhr();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    if (deps.sid) xhr.setRequestHeader('x-sid', deps.sid);
    xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : upload.size });
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(xhrError(500, '', (n) => xhr.getResponseHeader(n)));
        }
      } else reject(xhrError(xhr.status, xhr.responseText, (n) => xhr.getResponseHeader(n)));
    };
    xhr.onerror = () => reject(new ApiError({ status: 0, code: 'NETWORK', message: '' }));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    if (signal) {
      if (signal.aborted) {
        reject(new DOMException('The upload was cancelled', 'AbortError'));
        return;
      }
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(upload.form);
  });
}
