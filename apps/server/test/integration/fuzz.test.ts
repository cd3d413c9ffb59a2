import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@polyvox/contracts';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';

/**
 * Drives every route of the OpenAPI document (itself generated from the routes' zod schemas) with values drawn from
 * its schemas and with hostile mutations of them, and checks the contract: never a 5xx, and every error is a code of
 * the closed list whose request id is the `x-request-id` header. FUZZ_RUNS sets the runs per route (`npm run fuzz`
 * runs many more than CI).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  body: Schema | null;
  bodyRequired: boolean;
  query: { name: string; schema: Schema }[];
  pathParams: { name: string; schema: Schema }[];
}

// Ending the session would leave the rest of the run testing only the 401 path; it is checked once at the end.
const SKIPPED = new Set(['delete /accounts/me/session', 'post /uploads']);

const nest = (depth: number): unknown => {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

const protoObject = (): unknown =>
  JSON.parse('{"__proto__": {"admin": true, "credits": 1e9}, "constructor": {"prototype": {"x": 1}}}');

const hostileString = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '\u0000',
  'a\u0000b',
  '%00',
  '../../../etc/passwd',
  'line\r\nbreak',
  '\ud800',
  '<script>alert(1)</script>',
  "'; DROP TABLE accounts; --",
  '９９９',
  '💥'.repeat(300),
  'x'.repeat(200_000),
  '',
  ' ',
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom<unknown>(null, true, false, -1, 0, -0, 1.5, 1e308, -1e308, 2 ** 53 + 2, [], {}, [[]], [null]),
  fc.integer({ min: 20, max: 3000 }).map(nest),
  fc.constant(null).map(protoObject),
  fc.jsonValue({ maxDepth: 3 }),
);

function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union?.length) return fc.oneof(...union.map((s) => fromSchema(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      const plain = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
      if (typeof schema.pattern !== 'string') return plain;
      try {
        return fc.oneof(
          fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, 64)),
          plain,
        );
      } catch {
        return plain;
      }
    }
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -(2 ** 31)),
        max: Math.min(schema.maximum ?? 1000, 2 ** 31),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const shape = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, fromSchema(s, depth + 1)]));
      return fc.record(shape, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** One field of a valid-looking value replaced by a hostile one, or a hostile key added beside the others. */
function mutate(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, hostileValue, fc.nat(), fc.constantFrom('replace', 'add', '__proto__')).map(([v, bad, pick, how]) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad;
    const copy = JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
    const keys = Object.keys(copy);
    if (how === 'replace' && keys.length) copy[keys[pick % keys.length]!] = bad;
    else if (how === '__proto__') return { ...copy, ...(protoObject() as object) };
    else
      Object.defineProperty(copy, ['__proto__', 'constructor', 'toString', 'x\u0000'][pick % 4]!, {
        value: bad,
        enumerable: true,
      });
    return copy;
  });
}

const encode = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: bytes that are not UTF-8
  }
};

function operations(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(methods)) {
      if (SKIPPED.has(`${method} ${path}`)) continue;
      const params = (op.parameters ?? []) as { in: string; name: string; schema: Schema }[];
      ops.push({
        method: method.toUpperCase(),
        path,
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        bodyRequired: Boolean(op.requestBody?.required),
        query: params.filter((p) => p.in === 'query'),
        pathParams: params.filter((p) => p.in === 'path'),
      });
    }
  }
  return ops;
}

function requestArbitrary(op: Operation) {
  const valueOf = (s: Schema) => fc.oneof({ weight: 3, arbitrary: fromSchema(s) }, { weight: 1, arbitrary: hostileValue });
  const pathValues = fc.tuple(...op.pathParams.map((p) => valueOf(p.schema)));
  const queryValues = fc.tuple(
    ...op.query.map((p) => fc.option(valueOf(p.schema), { nil: undefined, freq: 2 })),
    fc.option(fc.tuple(hostileString, hostileString), { nil: undefined }),
  );
  const body = op.body
    ? fc.oneof(
        { weight: 3, arbitrary: fromSchema(op.body) },
        { weight: 3, arbitrary: mutate(fromSchema(op.body)) },
        { weight: 1, arbitrary: hostileValue },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined, freq: 4 });
  return fc.record({ pathValues, queryValues, body, lang: fc.constantFrom(undefined, 'en', 'zh-CN', 'zh-TW', '__proto__') });
}

function urlOf(op: Operation, input: { pathValues: unknown[]; queryValues: unknown[]; lang: string | undefined }): string {
  let path = op.path;
  op.pathParams.forEach((p, i) => {
    const v = input.pathValues[i];
    path = path.replace(`{${p.name}}`, encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')) || 'x');
  });
  const parts: string[] = [];
  op.query.forEach((p, i) => {
    const v = input.queryValues[i];
    if (v === undefined) return;
    for (const one of Array.isArray(v) ? v : [v])
      parts.push(`${encode(p.name)}=${encode(typeof one === 'string' ? one : (JSON.stringify(one) ?? ''))}`);
  });
  const extra = input.queryValues[op.query.length] as [string, string] | undefined;
  if (extra) parts.push(`${encode(extra[0])}=${encode(extra[1])}`);
  if (input.lang) parts.push(`lang=${encode(input.lang)}`);
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

async function expectContract(res: Response, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers.get('x-request-id'), what).toMatch(/^req_/);
  if (res.status < 400) return;
  expect(res.headers.get('content-type'), `${what} → ${text.slice(0, 200)}`).toContain('application/json');
  const body = JSON.parse(text) as { error?: { code?: string; message?: string; request_id?: string } };
  expect(ERROR_CODES, `${what} → ${text.slice(0, 300)}`).toContain(body.error?.code);
  expect(body.error?.message, what).toBeTruthy();
  expect(body.error?.request_id, what).toBe(res.headers.get('x-request-id'));
}

describe.each(DIALECTS)('fuzz: every route keeps the contract (%s)', (dialect) => {
  let t: TestApp;
  let sid: string;
  let ops: Operation[];
  beforeAll(async () => {
    t = await startTestApp(dialect, { env: { SPEECH_WORKERS: '1', PREVIEW_PRERENDER: 'false' } });
    // The device's trial went to the first account: the fuzzing account has no credits, so no request synthesizes.
    await new Client(t.url).anonymous('web-fuzz-device');
    const broke = new Client(t.url);
    const { account } = await broke.anonymous('web-fuzz-device');
    expect(account.vip.credits).toBe(0);
    sid = broke.sid!;
    ops = operations((await (await fetch(`${t.url}/openapi.json`)).json()) as Schema);
    expect(ops.length).toBeGreaterThan(15);
    // /readyz is 503 (by design) until the engines are warm: the fuzzing starts once the server says it is ready,
    // so every route, /readyz among them, is judged as a ready server answers it. The deadline only bounds a hang.
    const deadline = Date.now() + 240_000;
    while ((await fetch(`${t.url}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('the server never became ready');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 300_000);
  afterAll(async () => {
    await t.close();
  });

  it('answers generated and hostile requests on every route with the contract', async () => {
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op), async (input) => {
          const url = urlOf(op, input);
          const headers: Record<string, string> = { 'x-sid': sid };
          let body: string | undefined;
          if (input.body !== undefined && op.method !== 'GET') {
            body = JSON.stringify(input.body);
            headers['content-type'] = 'application/json';
          }
          const res = await fetch(`${t.url}${url}`, { method: op.method, headers, body });
          await expectContract(res, `${op.method} ${url.slice(0, 200)} ${body?.slice(0, 200) ?? ''}`);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    }
  });

  it('answers raw hostile bodies with the contract', async () => {
    const raws = [
      '{',
      '{"a":',
      'null',
      '[]',
      '"text"',
      '1e999999',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
      '['.repeat(50_000) + ']'.repeat(50_000),
      '{"text":"\\u0000"}',
      '\u0000',
      '\ufeff{}',
    ];
    for (const op of ops.filter((o) => o.method !== 'GET')) {
      for (const raw of raws) {
        const res = await fetch(
          `${t.url}${urlOf(op, { pathValues: op.pathParams.map(() => 'x'), queryValues: [], lang: undefined })}`,
          {
            method: op.method,
            headers: { 'x-sid': sid, 'content-type': 'application/json' },
            body: raw,
          },
        );
        await expectContract(res, `${op.method} ${op.path} ${raw.slice(0, 40)}`);
      }
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/json; charset=latin1',
      ]) {
        const res = await fetch(`${t.url}${op.path.replace(/\{\w+\}/g, 'x')}`, {
          method: op.method,
          headers: { 'x-sid': sid, 'content-type': type },
          body: 'a=1',
        });
        await expectContract(res, `${op.method} ${op.path} as ${type}`);
      }
    }
  });

  it('ends the session it was given, with or without a JSON content type', async () => {
    const res = await fetch(`${t.url}/accounts/me/session`, {
      method: 'DELETE',
      headers: { 'x-sid': sid, 'content-type': 'application/json' },
    });
    await expectContract(res, 'DELETE /accounts/me/session');
    await expectContract(await fetch(`${t.url}/accounts/me`, { headers: { 'x-sid': sid } }), 'GET /accounts/me after');
  });
});
