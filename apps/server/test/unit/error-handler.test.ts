import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MESSAGES } from '@polyvox/contracts';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { AppError } from '../../src/platform/errors.js';

const SECRET = 'postgres://admin:hunter2@db.internal:5432/polyvox';

describe('error handler', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const f = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
    f.setValidatorCompiler(validatorCompiler);
    f.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(f);
    f.get('/throw', async () => {
      throw new Error(`connect failed: ${SECRET}`);
    });
    f.get('/throw-sync', () => {
      throw new TypeError(`Cannot read properties of undefined (reading '${SECRET}')`);
    });
    f.get('/throw-status', async () => {
      throw Object.assign(new Error(SECRET), { statusCode: 503, code: 'ECONNREFUSED' });
    });
    f.get('/throw-string', async () => {
      throw SECRET;
    });
    f.get('/app-error', async () => {
      throw new AppError('CODE_COOLDOWN', { seconds: 42 }, { headers: { 'retry-after': '42' }, cause: new Error(SECRET) });
    });
    f.get('/internal', async () => {
      throw new AppError('INTERNAL', { detail: SECRET });
    });
    f.post(
      '/validate',
      { schema: { body: z.object({ name: z.string().min(2), kind: z.enum(['a', 'b']), nested: z.object({ n: z.number() }) }) } },
      async () => ({ ok: true }),
    );
    await f.ready();
    app = f;
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(['/throw', '/throw-sync', '/throw-status', '/throw-string', '/internal'])(
    '%s answers 500 INTERNAL with the fixed message and nothing of the failure',
    async (url) => {
      for (const [lang, expected] of [
        ['en', 'Something went wrong, please try again later'],
        ['zh-CN', ERROR_MESSAGES['zh-CN'].INTERNAL],
      ] as const) {
        const res = await app.inject({ method: 'GET', url: `${url}?lang=${lang}` });
        expect(res.statusCode).toBe(500);
        const body = res.json();
        expect(body).toEqual({ error: { code: 'INTERNAL', message: expected, request_id: expect.any(String) } });
        expect(res.body).not.toMatch(/hunter2|postgres|ECONNREFUSED|stack|TypeError|at .*\.js/);
      }
    },
  );

  it('sends an AppError with its status, headers and localized, filled message', async () => {
    const res = await app.inject({ method: 'GET', url: '/app-error', headers: { 'accept-language': 'zh-TW' } });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('42');
    expect(res.json().error).toMatchObject({ code: 'CODE_COOLDOWN', message: '請等待 42 秒後再取得驗證碼' });
    expect(res.body).not.toContain('hunter2');
  });

  it('maps a missing field to PARAMETERS_NEEDED and a bad one to VALIDATION_FAILED naming it', async () => {
    const post = (payload: unknown) => app.inject({ method: 'POST', url: '/validate', payload: payload as object });
    const good = { name: 'ok', kind: 'a', nested: { n: 1 } };
    expect((await post(good)).statusCode).toBe(200);
    const cases: [unknown, string, string][] = [
      [{ kind: 'a', nested: { n: 1 } }, 'PARAMETERS_NEEDED', 'name'],
      [{ name: 'ok', nested: { n: 1 } }, 'PARAMETERS_NEEDED', 'kind'],
      [{ name: 'ok', kind: 'a', nested: {} }, 'PARAMETERS_NEEDED', 'nested.n'],
      [{ name: 'x', kind: 'a', nested: { n: 1 } }, 'VALIDATION_FAILED', 'name'],
      [{ name: 'ok', kind: 'c', nested: { n: 1 } }, 'VALIDATION_FAILED', 'kind'],
      [{ name: 'ok', kind: 'a', nested: { n: 'one' } }, 'VALIDATION_FAILED', 'nested.n'],
      [{ name: 'ok', kind: 'a', nested: null }, 'VALIDATION_FAILED', 'nested'],
      [{ name: 7, kind: 'a', nested: { n: 1 } }, 'VALIDATION_FAILED', 'name'],
    ];
    for (const [payload, code, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const { error } = res.json();
      expect(error.code, JSON.stringify(payload)).toBe(code);
      if (code === 'VALIDATION_FAILED')
        expect(error.message).toMatch(new RegExp(`^Invalid value for ${field.replace('.', '\\.')}: `));
    }
  });

  it('answers NOT_FOUND for an unknown route', async () => {
    const res = await app.inject({ method: 'GET', url: '/missing?lang=zh-CN' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message: ERROR_MESSAGES['zh-CN'].NOT_FOUND });
  });
});
