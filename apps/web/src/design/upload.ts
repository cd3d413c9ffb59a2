import { ApiError, parseRetryAfter } from '../api/errors';
import { buildUrl } from '../api/http';
import { CLIENT_VERSION } from '../version';
import type { CloneSample } from './types';

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

/**
 * POST /files_upload?type=clone with XMLHttpRequest, whose upload events report real progress
 * (fetch has none for request bodies). The server judges the file; its errors come back as ApiError.
 */
export function sendSample(
  file: Blob,
  fileName: string,
  onProgress: (p: UploadProgress) => void,
  deps: UploadDeps,
  signal?: AbortSignal,
): Promise<CloneSample> {
  return new Promise((resolve, reject) => {
    const url = buildUrl(deps.baseUrl, '/files_upload', { from: 'web', cv: CLIENT_VERSION, lang: deps.lang }, { type: 'clone' });
    const form = new FormData();
    // The consent field comes before the file, so the server reads it before the bytes.
    form.append('consent', 'true');
    form.append('file', file, fileName);
    const xhr = deps.xhr();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    if (deps.sid) xhr.setRequestHeader('x-sid', deps.sid);
    xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as CloneSample);
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
    xhr.send(form);
  });
}
