import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CURRENCIES,
  CatalogProductSchema,
  CatalogQuery,
  CatalogResponse,
  ErrorBody,
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
  };
}
