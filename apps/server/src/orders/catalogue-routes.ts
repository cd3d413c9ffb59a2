import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CURRENCIES,
  CatalogProductSchema,
  CatalogQuery,
  CatalogResponse,
  CreateCatalogProductRequest,
  ErrorBody,
  RetireCatalogProductQuery,
  UpdateCatalogProductRequest,
  type CatalogProduct,
} from '@polyvox/contracts';
import { auditFrom, operatorOf } from '../http/auth.js';
import type { AuditTrail } from '../audit/trail.js';
import type { CatalogueStore, StoredProduct } from './catalogue-store.js';

export interface CatalogueRoutesDeps {
  products: CatalogueStore;
  audit: AuditTrail;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export function catalogProductView(p: StoredProduct): CatalogProduct {
  return {
    id: p.id,
    kind: p.kind,
    plan: p.plan,
    vip_level: p.vipLevel,
    credits: p.credits,
    period_days: p.periodDays,
    prices: p.prices,
    privileges: p.privileges,
    name: p.name,
    description: p.description,
    hidden: p.hidden,
    purchasable: p.purchasable,
    updated_at: p.updatedAt,
    updated_by: p.updatedBy,
  };
}

/** The operator's side of the catalogue (permission `catalog.manage`): every product, and edits with their audit. */
export function catalogueRoutes(deps: CatalogueRoutesDeps): FastifyPluginAsyncZod {
  const { products, audit } = deps;
  return async (app) => {
    app.get(
      '/admin/api/catalog/products',
      {
        config: { auth: 'operator', permission: 'catalog.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Every product and plan, hidden ones too, in every language and currency',
          querystring: CatalogQuery,
          response: { 200: CatalogResponse, ...errors },
        },
      },
      async (request) => {
        const all = await products.all();
        const kind = request.query.kind;
        return {
          items: all.items.filter((p) => !kind || p.kind === kind).map(catalogProductView),
          version: all.version,
          basic_plan: all.basicPlan as CatalogProduct['plan'] & string,
          currencies: [...CURRENCIES],
        };
      },
    );

    app.patch(
      '/admin/api/catalog/products/:id',
      {
        config: { auth: 'operator', permission: 'catalog.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Change a product or a plan: prices, credits, period, privileges, texts, shown or hidden',
          description:
            'Checked as the seed file is (a sold plan keeps its period and prices above zero; the free and the basic plan stay shown). Every process serves the change within `CATALOG_REFRESH_SECONDS`; orders already made keep what they were made with. Audited (`product.update` or `plan.update`) with before and after.',
          params: z.object({ id: z.string().max(64) }),
          body: UpdateCatalogProductRequest,
          response: { 200: CatalogProductSchema, ...errors },
        },
      },
      async (request) => {
        const { reason, ...change } = request.body;
        const operator = operatorOf(request);
        const after = await products.update(request.params.id, change, operator.accountId, (trx, before, next) =>
          audit.record(
            auditFrom(
              request,
              before.kind === 'plan' ? 'plan.update' : 'product.update',
              { type: 'product', id: before.id },
              {
                before: catalogProductView(before),
                after: catalogProductView(next),
                reason: reason ?? null,
              },
            ),
            trx,
          ),
        );
        return catalogProductView(after);
      },
    );

    app.post(
      '/admin/api/catalog/products',
      {
        config: { auth: 'operator', permission: 'catalog.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Add a product or a plan',
          description:
            "Checked as an edit is; the id is never one used before (retired products' included). Served by every process within `CATALOG_REFRESH_SECONDS`. Audited (`product.create` or `plan.create`).",
          body: CreateCatalogProductRequest,
          response: { 201: CatalogProductSchema, ...errors },
        },
      },
      async (request, reply) => {
        const { reason, ...b } = request.body;
        const operator = operatorOf(request);
        const current = await products.current();
        const free = current.list('plan', { all: true }).find((p) => p.plan === 'free')!;
        const made = await products.create(
          {
            id: b.id,
            kind: b.kind,
            plan: b.kind === 'plan' ? b.plan! : null,
            vipLevel: b.kind === 'plan' ? b.vip_level! : null,
            rank: b.rank ?? 0,
            credits: b.credits,
            periodDays: b.kind === 'plan' ? (b.period_days ?? null) : null,
            prices: b.prices,
            privileges: b.privileges ?? free.privileges,
            name: b.name,
            description: b.description,
            purchasable: !(b.kind === 'plan' && b.plan === 'free'),
            hidden: b.hidden ?? false,
          },
          operator.accountId,
          (trx, product) =>
            audit.record(
              auditFrom(
                request,
                product.kind === 'plan' ? 'plan.create' : 'product.create',
                { type: 'product', id: product.id },
                { after: catalogProductView(product), reason: reason ?? null },
              ),
              trx,
            ),
        );
        return reply.status(201).send(catalogProductView(made));
      },
    );

    app.delete(
      '/admin/api/catalog/products/:id',
      {
        config: { auth: 'operator', permission: 'catalog.manage' },
        schema: {
          tags: ['operator'],
          summary: 'Retire a product or a plan: no longer listed or sold; orders keep it as bought',
          description:
            'Holders of a retired plan keep its privileges until it expires. The free and the basic plan, and the last plan of a period, cannot be retired (400). Audited (`product.retire` or `plan.retire`).',
          params: z.object({ id: z.string().max(64) }),
          querystring: RetireCatalogProductQuery,
          response: { 200: z.object({ retired: z.string() }), ...errors },
        },
      },
      async (request) => {
        const operator = operatorOf(request);
        const retired = await products.retire(request.params.id, operator.accountId, (trx, product) =>
          audit.record(
            auditFrom(
              request,
              product.kind === 'plan' ? 'plan.retire' : 'product.retire',
              { type: 'product', id: product.id },
              { before: catalogProductView(product), reason: request.query.reason ?? null },
            ),
            trx,
          ),
        );
        return { retired: retired.id };
      },
    );
  };
}
