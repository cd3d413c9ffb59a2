import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { acsRpcRefusal } from './sms.js';

/**
 * Local fakes of the moderation providers, speaking their wire protocols: OpenAI's `POST /v1/moderations` (bearer
 * key checked) and Alibaba Cloud's RPC `TextModeration` (form body, signature v1 recomputed and checked here from the
 * documented algorithm, not from the code under test). A text flagged contains one of `flag`'s keys (the category
 * answered is its value); one containing `hang` is never answered (the caller's timeout decides).
 */
export interface FakeProvider {
  url: string;
  /** The texts asked about, in order. */
  seen: string[];
  /** Requests refused for a bad key or signature. */
  refused: number;
  close(): Promise<void>;
}

interface FakeOptions {
  flag: Record<string, string>;
  hang?: string;
}

async function serve(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void): Promise<{
  server: http.Server;
  url: string;
  hanging: http.ServerResponse[];
}> {
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hanging };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

function closer(server: http.Server, hanging: http.ServerResponse[]) {
  return () =>
    new Promise<void>((resolve) => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** OpenAI's moderation endpoint; `url` is the API base (`…/v1`). */
export async function fakeOpenAiModeration(apiKey: string, opts: FakeOptions): Promise<FakeProvider> {
  const state = { seen: [] as string[], refused: 0 };
  const { server, url, hanging } = await serve((req, body, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/moderations') return json(res, 404, { error: { message: 'not found' } });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      state.refused += 1;
      return json(res, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    }
    const { input, model } = JSON.parse(body) as { input: string; model: string };
    state.seen.push(input);
    if (opts.hang && input.includes(opts.hang)) return void hanging.push(res);
    const hit = Object.entries(opts.flag).find(([k]) => input.includes(k));
    const categories = { harassment: false, hate: false, 'self-harm': false, sexual: false, violence: false, illicit: false };
    json(res, 200, {
      id: `modr-${state.seen.length}`,
      model,
      results: [
        {
          flagged: !!hit,
          categories: hit ? { ...categories, [hit[1]]: true } : categories,
          category_scores: Object.fromEntries(Object.keys(categories).map((c) => [c, hit && c === hit[1] ? 0.98 : 0.001])),
        },
      ],
    });
  });
  return {
    url: `${url}/v1`,
    get seen() {
      return state.seen;
    },
    get refused() {
      return state.refused;
    },
    close: closer(server, hanging),
  };
}

/** Alibaba Cloud Content Moderation 2022-03-02 `TextModeration`; `url` is the endpoint. */
export async function fakeAliyunModeration(accessKeyId: string, secret: string, opts: FakeOptions): Promise<FakeProvider> {
  const state = { seen: [] as string[], refused: 0 };
  const nonces = new Set<string>();
  const { server, url, hanging } = await serve((req, body, res) => {
    const rest = Object.fromEntries(new URLSearchParams(body));
    if (acsRpcRefusal(req.method ?? '', rest, accessKeyId, secret, nonces)) {
      state.refused += 1;
      return json(res, 400, {
        RequestId: 'fake',
        HostId: 'green-cip.cn-shanghai.aliyuncs.com',
        Code: 'SignatureDoesNotMatch',
        Message: 'Specified signature is not matched with our calculation.',
      });
    }
    if (rest.Action !== 'TextModeration' || rest.Version !== '2022-03-02' || rest.Format !== 'JSON')
      return json(res, 400, { RequestId: 'fake', Code: 'InvalidAction.NotFound', Message: 'Specified api is not found' });
    const { content } = JSON.parse(rest.ServiceParameters ?? '{}') as { content?: string };
    if (typeof content !== 'string') return json(res, 200, { Code: 400, Message: 'content is empty', RequestId: 'fake' });
    state.seen.push(content);
    if (opts.hang && content.includes(opts.hang)) return void hanging.push(res);
    const hit = Object.entries(opts.flag).find(([k]) => content.includes(k));
    json(res, 200, {
      Code: 200,
      Data: { labels: hit ? hit[1] : '', reason: hit ? JSON.stringify({ riskTips: hit[1], riskWords: hit[0] }) : '' },
      Message: 'OK',
      RequestId: `fake-${state.seen.length}`,
    });
  });
  return {
    url,
    get seen() {
      return state.seen;
    },
    get refused() {
      return state.refused;
    },
    close: closer(server, hanging),
  };
}
