import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors';
import { sendSample, type UploadDeps, type UploadXhr } from './upload';

/** An XMLHttpRequest stand-in that records what was sent and answers as the test says. */
class FakeXhr implements UploadXhr {
  method = '';
  url = '';
  headers = new Map<string, string>();
  body: FormData | null = null;
  aborted = false;
  status = 0;
  responseText = '';
  responseHeaders = new Map<string, string>();
  upload: UploadXhr['upload'] = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers.set(name, value);
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  getResponseHeader(name: string) {
    return this.responseHeaders.get(name) ?? null;
  }
  answer(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
    for (const [k, v] of Object.entries(headers)) this.responseHeaders.set(k, v);
    this.onload?.();
  }
}

function setup(sid: string | null = 'sid-1') {
  const xhr = new FakeXhr();
  const deps: UploadDeps = { xhr: () => xhr, baseUrl: 'http://127.0.0.1:8080', sid, lang: 'zh-TW' };
  return { xhr, deps };
}

const SAMPLE = { id: 'file_1', index: 3, format: 'wav', size: 352_844, duration: 11, sample_rate: 16000, noisy: false };

describe('sendSample', () => {
  it('posts the file and consent to /files_upload?type=clone with the session, language and client version', async () => {
    const { xhr, deps } = setup();
    const file = new Blob([new Uint8Array(1000)], { type: 'audio/wav' });
    const done = sendSample(file, 'jfk.wav', () => {}, deps);
    const url = new URL(xhr.url);
    expect(xhr.method).toBe('POST');
    expect(url.pathname).toBe('/files_upload');
    expect(url.searchParams.get('type')).toBe('clone');
    expect(url.searchParams.get('lang')).toBe('zh-TW');
    expect(url.searchParams.get('from')).toBe('web');
    expect(url.searchParams.get('cv')).toMatch(/^v\d/);
    expect(xhr.headers.get('x-sid')).toBe('sid-1');
    expect(xhr.body?.get('consent')).toBe('true');
    expect((xhr.body?.get('file') as File).name).toBe('jfk.wav');
    // The consent is read before the file's bytes.
    expect([...xhr.body!.keys()]).toEqual(['consent', 'file']);
    xhr.answer(201, SAMPLE);
    await expect(done).resolves.toEqual(SAMPLE);
  });

  it('reports the bytes sent as they go', async () => {
    const { xhr, deps } = setup();
    const seen: number[] = [];
    const done = sendSample(new Blob([new Uint8Array(4000)]), 'a.wav', (p) => seen.push(p.loaded / p.total), deps);
    xhr.upload.onprogress?.({ loaded: 1000, total: 4000, lengthComputable: true });
    xhr.upload.onprogress?.({ loaded: 4000, total: 4000, lengthComputable: true });
    // Without a known total, the file's own size stands in.
    xhr.upload.onprogress?.({ loaded: 2000, total: 0, lengthComputable: false });
    xhr.answer(201, SAMPLE);
    await done;
    expect(seen).toEqual([0.25, 1, 0.5]);
  });

  it("turns the server's error body into an ApiError with its localized message", async () => {
    const { xhr, deps } = setup();
    const done = sendSample(new Blob([new Uint8Array(10)]), 'a.wav', () => {}, deps);
    xhr.answer(
      422,
      { error: { code: 'AUDIO_TOO_SHORT', message: '樣本長度須在 10 秒到 5 分鐘之間，目前樣本過短', request_id: 'req_1' } },
      { 'x-request-id': 'req_1' },
    );
    const error = (await done.catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe('AUDIO_TOO_SHORT');
    expect(error.serverMessage).toContain('過短');
    expect(error.requestId).toBe('req_1');
  });

  it('keeps a status-derived code when the answer is not JSON (a proxy refusing a large body)', async () => {
    const { xhr, deps } = setup();
    const done = sendSample(new Blob([new Uint8Array(10)]), 'a.wav', () => {}, deps);
    xhr.answer(502, '<html>Bad gateway</html>');
    const error = (await done.catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('INTERNAL');
  });

  it('a network failure is NETWORK; a cancelled upload aborts the request', async () => {
    const first = setup();
    const failed = sendSample(new Blob([]), 'a.wav', () => {}, first.deps);
    first.xhr.onerror?.();
    expect(((await failed.catch((e: unknown) => e)) as ApiError).code).toBe('NETWORK');

    const second = setup(null);
    const controller = new AbortController();
    const cancelled = sendSample(new Blob([]), 'a.wav', () => {}, second.deps, controller.signal);
    expect(second.xhr.headers.has('x-sid')).toBe(false);
    controller.abort();
    expect(second.xhr.aborted).toBe(true);
    expect(((await cancelled.catch((e: unknown) => e)) as DOMException).name).toBe('AbortError');
  });
});
