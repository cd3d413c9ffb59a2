/**
 * Local servers speaking the wire formats of the remote providers: OpenAI's `/v1/audio/speech`
 * and ElevenLabs' text-to-speech, including their error bodies. They "speak" a tone whose pitch
 * depends on the voice and whose length follows the text and the requested speed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { floatToInt16 } from '../../src/dsp/pcm.ts';
import { tone } from './audio.ts';

export interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ProviderServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export const SECONDS_PER_CHAR = 0.05;
export const VOICE_HZ: Record<string, number> = { alloy: 150, onyx: 100, nova: 220, v_rachel: 210, v_adam: 105 };

function pcmFor(text: string, voice: string, speed: number): Buffer {
  return floatToInt16(tone(VOICE_HZ[voice] ?? 160, (text.length * SECONDS_PER_CHAR) / speed, 24000, 0.3));
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function serve(handler: (r: Recorded, res: http.ServerResponse, url: URL) => void): Promise<ProviderServer> {
  const requests: Recorded[] = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rec = { method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body: await readBody(req) };
    requests.push(rec);
    handler(rec, res, url);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** OpenAI: Bearer keys `good`, `bad` (401), `quota` (429 insufficient_quota), `busy` (429 + retry-after), `boom` (500). */
export function openAIServer(): Promise<ProviderServer> {
  return serve((r, res) => {
    if (r.method !== 'POST' || r.path !== '/v1/audio/speech')
      return json(res, 404, { error: { message: 'Not found', type: 'invalid_request_error', code: null } });
    const key = String(r.headers.authorization ?? '').replace(/^Bearer /, '');
    if (key === 'bad')
      return json(res, 401, {
        error: {
          message: 'Incorrect API key provided: bad. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    if (key === 'quota')
      return json(res, 429, {
        error: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      });
    if (key === 'busy')
      return json(
        res,
        429,
        {
          error: {
            message: 'Rate limit reached for tts-1 on requests per min (RPM): Limit 3, Used 3, Requested 1.',
            type: 'requests',
            param: null,
            code: 'rate_limit_exceeded',
          },
        },
        { 'retry-after': '7' },
      );
    if (key === 'boom')
      return json(res, 500, {
        error: {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      });
    if (key !== 'good')
      return json(res, 401, {
        error: { message: 'Missing bearer authentication in header', type: 'invalid_request_error', param: null, code: null },
      });
    const {
      input,
      voice,
      speed,
      response_format: format,
      model,
    } = r.body as { input?: string; voice?: string; speed?: number; response_format?: string; model?: string };
    if (typeof input !== 'string' || !input || typeof model !== 'string')
      return json(res, 400, {
        error: {
          message: "Missing required parameter: 'input'.",
          type: 'invalid_request_error',
          param: 'input',
          code: 'missing_required_parameter',
        },
      });
    if (!voice || !(voice in VOICE_HZ))
      return json(res, 400, {
        error: {
          message: `Invalid value for 'voice': '${voice}'.`,
          type: 'invalid_request_error',
          param: 'voice',
          code: 'invalid_value',
        },
      });
    if (format !== 'pcm')
      return json(res, 400, {
        error: {
          message: 'this test server only answers pcm',
          type: 'invalid_request_error',
          param: 'response_format',
          code: 'invalid_value',
        },
      });
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' });
    res.end(pcmFor(input, voice, speed ?? 1));
  });
}

/** ElevenLabs: xi-api-key `good`, `bad` (401 invalid_api_key), `quota` (401 quota_exceeded), `unpaid` (402), `busy` (429). */
export function elevenLabsServer(): Promise<ProviderServer> {
  return serve((r, res, url) => {
    const key = String(r.headers['xi-api-key'] ?? '');
    if (key === 'bad' || !key) return json(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    if (r.method === 'GET' && url.pathname === '/v1/voices') {
      return json(res, 200, {
        voices: [
          {
            voice_id: 'v_rachel',
            name: 'Rachel',
            category: 'premade',
            labels: { accent: 'american', description: 'calm', gender: 'female', use_case: 'narration' },
          },
          {
            voice_id: 'v_adam',
            name: 'Adam',
            category: 'premade',
            labels: { accent: 'american', description: 'deep', gender: 'male', use_case: 'narration' },
          },
        ],
      });
    }
    const m = /^\/v1\/text-to-speech\/([^/]+)$/.exec(url.pathname);
    if (r.method !== 'POST' || !m) return json(res, 404, { detail: { status: 'not_found', message: 'Not found' } });
    if (key === 'quota')
      return json(res, 401, {
        detail: {
          status: 'quota_exceeded',
          message:
            'This request exceeds your quota of 10000. You have 12 credits remaining, while 45 credits are required for this request.',
        },
      });
    if (key === 'unpaid')
      return json(res, 402, { detail: { status: 'payment_required', message: 'Your subscription has expired.' } });
    if (key === 'busy')
      return json(res, 429, { detail: { status: 'too_many_concurrent_requests', message: 'Too many concurrent requests.' } });
    const voice = decodeURIComponent(m[1]!);
    if (!(voice in VOICE_HZ))
      return json(res, 404, {
        detail: { status: 'voice_not_found', message: `A voice with the voice_id ${voice} was not found.` },
      });
    const { text, voice_settings: settings } = r.body as { text?: string; voice_settings?: { speed?: number } };
    if (typeof text !== 'string' || !text)
      return json(res, 422, { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'value_error.missing' }] });
    const speed = settings?.speed ?? 1;
    if (speed < 0.7 || speed > 1.2)
      return json(res, 400, { detail: { status: 'invalid_voice_settings', message: 'speed must be between 0.7 and 1.2' } });
    if (url.searchParams.get('output_format') !== 'pcm_24000')
      return json(res, 400, { detail: { status: 'invalid_output_format', message: 'this test server only answers pcm_24000' } });
    res.writeHead(200, { 'content-type': 'audio/pcm' });
    res.end(pcmFor(text, voice, speed));
  });
}
