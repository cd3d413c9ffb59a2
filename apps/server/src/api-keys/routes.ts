import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiKeyListResponse,
  ApiKeySchema,
  CreateApiKeyRequest,
  CreatedApiKeyResponse,
  DeleteApiKeyQuery,
  ErrorBody,
  UpdateApiKeyRequest,
} from '@polyvox/contracts';
import { sessionOf } from '../http/auth.js';
import type { ApiKeysService } from './service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

/** Keys are managed with a session only: a key can neither see nor change keys (nor the account). */
export interface ApiKeyRoutesDeps {
  apiKeys: ApiKeysService;
  /** The plan's API access (the orders module's plan privileges): refuses an account whose plan has none. */
  plans: { assertApiAccess(accountId: string): Promise<void> };
  /** Real-name users (REAL_NAME=phone): refuses an account without a verified phone number. */
  realName: { assert(accountId: string): Promise<void> };
}

export function apiKeyRoutes(deps: ApiKeyRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/authorization',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['api keys'],
          summary: "The account's API keys (never their secrets)",
          response: { 200: ApiKeyListResponse, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return { items: await deps.apiKeys.list(session.accountId) };
      },
    );

    app.put(
      '/api/authorization',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['api keys'],
          summary:
            'Create an API key; the answer holds its secret, shown this once (403 when the plan has no API access, or REAL_NAME_REQUIRED without a verified phone number where the operator requires one)',
          body: CreateApiKeyRequest,
          response: { 201: CreatedApiKeyResponse, ...errors, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.realName.assert(session.accountId);
        await deps.plans.assertApiAccess(session.accountId);
        const created = await deps.apiKeys.create(session.accountId, request.body);
        return reply.status(201).header('cache-control', 'no-store').send(created);
      },
    );

    app.patch(
      '/api/authorization',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['api keys'],
          summary: 'Rename a key, or change its credit limit, rate, concurrency or voices',
          body: UpdateApiKeyRequest,
          response: { 200: ApiKeySchema, ...errors },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        const { id, ...changes } = request.body;
        return deps.apiKeys.update(session.accountId, id, changes);
      },
    );

    app.delete(
      '/api/authorization',
      {
        config: { auth: 'session' },
        schema: {
          tags: ['api keys'],
          summary: 'Delete a key: it stops working at once',
          querystring: DeleteApiKeyQuery,
          response: { 204: z.null(), ...errors },
        },
      },
      async (request, reply) => {
        const session = sessionOf(request);
        await deps.apiKeys.remove(session.accountId, request.query.id);
        return reply.status(204).send(null);
      },
    );
  };
}
