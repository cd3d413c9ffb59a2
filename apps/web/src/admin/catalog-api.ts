import type { CatalogProduct, CodeBatch, CreateCatalogProductBody } from '@polyvox/contracts';
import { http } from '../api/client';

export interface BatchCode {
  id: string;
  code: string;
  uses: number;
  max_uses: number;
  state: 'unused' | 'partly_used' | 'used_up';
  redemptions: { account_id: string; email: string | null; at: string }[];
}

export interface NewBatchBody {
  name: string;
  kind: 'credits' | 'plan';
  credits?: number;
  product?: string;
  count: number;
  uses_per_code: number;
  prefix: string;
  expires_at: string | null;
  reason: string;
}

export type ProductChange = Partial<{
  prices: Partial<Record<'CNY' | 'USD', number>>;
  credits: number;
  period_days: number;
  privileges: Partial<CatalogProduct['privileges']>;
  name: Partial<CatalogProduct['name']>;
  hidden: boolean;
  reason: string;
}>;

/** The codes and catalogue pages' calls (`/admin/api/codes/…`, `/admin/api/catalog/…`). */
export const catalogApi = {
  batches: (query: Record<string, string | number | undefined>) =>
    http<{ items: CodeBatch[]; total: number }>('GET', '/admin/api/codes/batches', { query }),
  createBatch: (body: NewBatchBody) =>
    http<{ batch: CodeBatch; codes: string[] }>('POST', '/admin/api/codes/batches', { json: body }),
  batchCodes: (id: string, query: Record<string, string | number | undefined>) =>
    http<{ items: BatchCode[]; total: number }>('GET', `/admin/api/codes/batches/${encodeURIComponent(id)}/codes`, { query }),
  exportBatch: (id: string) =>
    http<Response>('GET', `/admin/api/codes/batches/${encodeURIComponent(id)}/export.csv`, { raw: true }),
  revokeBatch: (id: string, reason: string) =>
    http<CodeBatch>('POST', `/admin/api/codes/batches/${encodeURIComponent(id)}/revoke`, { json: { reason } }),
  products: (kind?: string) =>
    http<{ items: CatalogProduct[]; version: number; basic_plan: string }>('GET', '/admin/api/catalog/products', {
      query: { kind },
    }),
  updateProduct: (id: string, change: ProductChange) =>
    http<CatalogProduct>('PATCH', `/admin/api/catalog/products/${encodeURIComponent(id)}`, { json: change }),
  createProduct: (body: CreateCatalogProductBody) => http<CatalogProduct>('POST', '/admin/api/catalog/products', { json: body }),
  retireProduct: (id: string, reason: string) =>
    http<{ retired: string }>('DELETE', `/admin/api/catalog/products/${encodeURIComponent(id)}`, {
      query: { reason: reason || undefined },
    }),
};

/** Saves a fetched file under `name`. */
export async function download(res: Response, name: string): Promise<void> {
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
