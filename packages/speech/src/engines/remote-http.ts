/**
 * HTTP for remote providers: one request, its audio bytes, or a SpeechError whose code the
 * server maps to the contract. The provider's key is the operator's, so a rejected key is not the
 * caller's fault: it surfaces as FORBIDDEN (logged by the server), never as UNAUTHENTICATED.
 */
import { SpeechError, type SpeechErrorCode } from '../core/errors.ts';

export interface RemoteProviderConfig {
  /** Base URL, e.g. https://api.openai.com or http://127.0.0.1:8880 (Kokoro-FastAPI). */
  url: string;
  key: string;
  timeoutMs?: number;
}

export interface ProviderErrorInfo {
  status: number;
  /** Provider's machine-readable reason (OpenAI `error.code`/`type`, ElevenLabs `detail.status`). */
  reason: string;
  message: string;
  retryAfter?: number;
}

const QUOTA = /quota|insufficient|credits|balance|billing|payment|paid_plan/i;

export function mapProviderError(provider: string, e: ProviderErrorInfo): SpeechError {
  let code: SpeechErrorCode;
  if (QUOTA.test(e.reason) || e.status === 402) code = 'INSUFFICIENT_BALANCE';
  else if (e.status === 429) code = 'RATE_LIMITED';
  else if (e.status === 401 || e.status === 403) code = 'FORBIDDEN';
  else if (e.status === 404) code = 'NOT_FOUND';
  else if (e.status === 400 || e.status === 413 || e.status === 422) code = 'VALIDATION_FAILED';
  else code = 'INTERNAL';
  return new SpeechError(code, `${provider}: ${e.message || e.reason || `HTTP ${e.status}`}`, {
    params: { provider, reason: e.reason, status: e.status, field: 'text', rule: e.reason },
    upstreamStatus: e.status,
    ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
  });
}

export async function postForAudio(
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  opts: {
    timeoutMs?: number;
    signal?: AbortSignal;
    parseError: (status: number, body: string) => { reason: string; message: string };
  },
): Promise<Buffer> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 60_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (e) {
    throw new SpeechError('INTERNAL', `${provider}: request failed (${(e as Error).message})`, {
      cause: e,
      params: { provider },
    });
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    const { reason, message } = opts.parseError(res.status, text);
    const ra = res.headers.get('retry-after');
    const retryAfter = ra && /^\d+(\.\d+)?$/.test(ra) ? Math.ceil(Number(ra)) : undefined;
    throw mapProviderError(provider, {
      status: res.status,
      reason,
      message,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }
  const audio = Buffer.from(await res.arrayBuffer());
  if (audio.length === 0) throw new SpeechError('INTERNAL', `${provider}: empty audio`, { params: { provider } });
  return audio;
}

export function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Little-endian 16-bit PCM to float. */
export function pcm16ToFloat(buf: Buffer): Float32Array {
  const n = Math.floor(buf.length / 2);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
  return out;
}
