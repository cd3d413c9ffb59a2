import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { defaultAuth, registerAuth, type KeyGate, type OperatorResolver, type SessionResolver } from '../../src/http/auth.js';

const sessions: SessionResolver = {
  resolve: async (sid) => (sid === 'good' ? { accountId: 'acc_1', sid } : null),
};
const gate: KeyGate = {
  keys: { resolve: async () => null },
  rate: { hit: async () => 0 } as unknown as KeyGate['rate'],
  concurrency: { acquire: async () => () => {} } as unknown as KeyGate['concurrency'],
  plans: { apiAccess: async () => true },
};
const operators: OperatorResolver = { resolve: async () => null, permits: () => false };

function server(): FastifyInstance {
  const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerAuth(app, sessions, gate, operators);
  return app;
}

describe('auth rules', () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close().catch(() => {});
    app = null;
  });

  it('refuses to start when a route declares no rule, naming the route', async () => {
    app = server();
    void app.register(async (scope) => {
      scope.get('/declared', { config: { auth: 'public' } }, async () => ({ ok: true }));
      scope.post('/forgotten', async () => ({ ok: true }));
    });
    await expect(app.ready()).rejects.toThrow(/route POST \/forgotten declares no auth rule/);
  });

  it('refuses to start when an operator route declares no permission, naming the route', async () => {
    app = server();
    void app.register(async (scope) => {
      scope.get('/admin/api/x', { config: { auth: 'operator' } }, async () => ({ ok: true }));
    });
    await expect(app.ready()).rejects.toThrow(/operator route GET \/admin\/api\/x declares no known permission/);
  });

  it('refuses a rule it does not know', async () => {
    app = server();
    void app.register(async (scope) => {
      scope.get('/odd', { config: { auth: 'sometimes' as never } }, async () => ({ ok: true }));
    });
    await expect(app.ready()).rejects.toThrow(/route GET \/odd declares an unknown auth rule: sometimes/);
  });

  it("gives a third-party plugin's routes the rule of the scope they are registered in", async () => {
    app = server();
    void app.register(async (scope) => {
      defaultAuth(scope, 'public');
      scope.get('/plugin-page', async () => 'page');
    });
    await app.ready();
    expect((await app.inject({ url: '/plugin-page' })).statusCode).toBe(200);
  });

  it('applies the rule after validation and puts what it found on the request', async () => {
    app = server();
    app.post('/mine', { config: { auth: 'session' }, schema: { body: z.object({ name: z.string() }) } }, async (request) => ({
      account: request.auth.session?.accountId,
    }));
    app.get('/maybe', { config: { auth: 'optional-session' } }, async (request) => ({
      account: request.auth.session?.accountId ?? null,
    }));
    await app.ready();
    // A malformed body is refused as malformed, signed in or not.
    const invalid = await app.inject({ method: 'POST', url: '/mine', payload: { name: 1 } });
    expect(invalid.statusCode).toBe(400);
    const anonymous = await app.inject({ method: 'POST', url: '/mine', payload: { name: 'x' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
    const signedIn = await app.inject({ method: 'POST', url: '/mine', payload: { name: 'x' }, headers: { 'x-sid': 'good' } });
    expect(signedIn.json()).toEqual({ account: 'acc_1' });
    expect((await app.inject({ url: '/maybe', headers: { 'x-sid': 'bad' } })).json()).toEqual({ account: null });
    expect((await app.inject({ url: '/maybe', headers: { 'x-sid': 'good' } })).json()).toEqual({ account: 'acc_1' });
  });
});
