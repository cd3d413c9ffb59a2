import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AccountActionRequest,
  AccountSearchQuery,
  AccountSearchResponse,
  AccountStatusResponse,
  AdminAccountPage,
  AdminLedgerResponse,
  AdminAccountOrdersResponse,
  AdminPageQuery,
  CreditAdjustRequest,
  CreditAdjustResponse,
  ErrorBody,
} from '@polyvox/contracts';
import { auditActor } from '../http/auth.js';
import type { AccountAdminService } from './service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const Params = z.object({ id: z.string().min(1).max(64) });
const TAGS = ['operator'];

export interface AccountAdminRoutesDeps {
  accountAdmin: AccountAdminService;
}

/** The console's accounts: search, an account's page, and the actions on it (each audited). */
export function accountAdminRoutes(deps: AccountAdminRoutesDeps): FastifyPluginAsyncZod {
  const service = deps.accountAdmin;
  return async (app) => {
    app.get(
      '/admin/api/accounts',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary: 'Find accounts by email, phone, account id, API key prefix or order id',
          querystring: AccountSearchQuery,
          response: { 200: AccountSearchResponse, ...errors },
        },
      },
      async (request) => {
        const { items, total } = await service.search(request.query);
        return { items, total, page: request.query.page, page_size: request.query.page_size };
      },
    );

    app.get(
      '/admin/api/accounts/:id',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary: "An account's page: balance, keys, voices, samples and sessions",
          params: Params,
          response: { 200: AdminAccountPage, ...errors },
        },
      },
      async (request) => service.page(request.params.id),
    );

    app.get(
      '/admin/api/accounts/:id/ledger',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary: "An account's ledger entries (holds and releases too), newest first, with their sum",
          params: Params,
          querystring: AdminPageQuery,
          response: { 200: AdminLedgerResponse, ...errors },
        },
      },
      async (request) => {
        const { page, page_size } = request.query;
        return { ...(await service.ledger(request.params.id, page, page_size)), page, page_size };
      },
    );

    app.get(
      '/admin/api/accounts/:id/orders',
      {
        config: { auth: 'operator', permission: 'accounts.read' },
        schema: {
          tags: TAGS,
          summary: "An account's orders, newest first",
          params: Params,
          querystring: AdminPageQuery,
          response: { 200: AdminAccountOrdersResponse, ...errors },
        },
      },
      async (request) => {
        const { page, page_size } = request.query;
        return { ...(await service.orders(request.params.id, page, page_size)), page, page_size };
      },
    );

    for (const direction of ['grant', 'deduct'] as const) {
      app.post(
        `/admin/api/accounts/:id/credits/${direction}`,
        {
          config: { auth: 'operator', permission: 'credits.adjust' },
          schema: {
            tags: TAGS,
            summary:
              direction === 'grant'
                ? 'Grant credits: a grant record the user sees, with the reason'
                : 'Deduct credits (never below zero: 402 INSUFFICIENT_BALANCE): a negative grant record with the reason',
            params: Params,
            body: CreditAdjustRequest,
            response: { 200: CreditAdjustResponse, ...errors },
          },
        },
        async (request) => {
          const { amount, reason } = request.body;
          const signed = direction === 'grant' ? amount : -amount;
          const { balance, recordId } = await service.adjust(auditActor(request), request.params.id, signed, reason);
          return { balance, record_id: recordId };
        },
      );
    }

    app.post(
      '/admin/api/accounts/:id/disable',
      {
        config: { auth: 'operator', permission: 'accounts.manage' },
        schema: {
          tags: TAGS,
          summary: 'Disable an account: its sessions end, keys and sign-in are refused, sockets close, held credits return',
          params: Params,
          body: AccountActionRequest,
          response: { 200: AccountStatusResponse, ...errors },
        },
      },
      async (request) => service.disable(auditActor(request), request.params.id, request.body.reason),
    );

    app.post(
      '/admin/api/accounts/:id/enable',
      {
        config: { auth: 'operator', permission: 'accounts.manage' },
        schema: {
          tags: TAGS,
          summary: 'Enable a disabled account again',
          params: Params,
          body: AccountActionRequest,
          response: { 200: AccountStatusResponse, ...errors },
        },
      },
      async (request) => service.enable(auditActor(request), request.params.id, request.body.reason),
    );

    app.post(
      '/admin/api/accounts/:id/sessions/end',
      {
        config: { auth: 'operator', permission: 'accounts.manage' },
        schema: {
          tags: TAGS,
          summary: 'End every session of an account (it signs in again)',
          params: Params,
          body: AccountActionRequest,
          response: { 200: AccountStatusResponse, ...errors },
        },
      },
      async (request) => service.endAllSessions(auditActor(request), request.params.id, request.body.reason),
    );
  };
}
