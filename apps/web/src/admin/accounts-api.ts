import type {
  AccountSearchResponse,
  AccountStatusResponse,
  AdminAccountPage,
  AdminClonedVoiceList,
  AdminLedgerResponse,
  AdminAccountOrdersResponse,
  OverviewResponse,
} from '@polyvox/contracts';
import { http } from '../api/client';

export type {
  AccountSearchResponse,
  AccountStatusResponse,
  AdminAccountPage,
  AdminLedgerResponse,
  AdminAccountOrdersResponse,
  OverviewResponse,
};

export interface AccountSearch {
  q: string;
  status: '' | 'active' | 'disabled';
  page: number;
  pageSize: number;
}

/** The operator routes of accounts and the overview (`/admin/api/…`). */
export const adminAccountsApi = {
  search: (s: AccountSearch) =>
    http<AccountSearchResponse>('GET', '/admin/api/accounts', {
      query: { q: s.q || undefined, status: s.status || undefined, page: s.page, page_size: s.pageSize },
    }),
  page: (id: string) => http<AdminAccountPage>('GET', `/admin/api/accounts/${encodeURIComponent(id)}`),
  clonedVoices: (id: string) => http<AdminClonedVoiceList>('GET', `/admin/api/accounts/${encodeURIComponent(id)}/cloned-voices`),
  ledger: (id: string, page: number, pageSize: number) =>
    http<AdminLedgerResponse>('GET', `/admin/api/accounts/${encodeURIComponent(id)}/ledger`, {
      query: { page, page_size: pageSize },
    }),
  orders: (id: string, page: number, pageSize: number) =>
    http<AdminAccountOrdersResponse>('GET', `/admin/api/accounts/${encodeURIComponent(id)}/orders`, {
      query: { page, page_size: pageSize },
    }),
  adjust: (id: string, direction: 'grant' | 'deduct', amount: number, reason: string) =>
    http<{ balance: number; record_id: string }>('POST', `/admin/api/accounts/${encodeURIComponent(id)}/credits/${direction}`, {
      json: { amount, reason },
    }),
  action: (id: string, action: 'disable' | 'enable' | 'sessions/end', reason: string) =>
    http<AccountStatusResponse>('POST', `/admin/api/accounts/${encodeURIComponent(id)}/${action}`, { json: { reason } }),
  overview: (from: string, to: string) => http<OverviewResponse>('GET', '/admin/api/overview', { query: { from, to } }),
};
