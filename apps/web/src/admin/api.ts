import type { AuditEntryView, FactorStatus, Operator, OperatorRole, TotpEnrolment } from '@polyvox/contracts';
import { http } from '../api/client';

/** The operator console's calls (`/admin/api/…`). */
export const adminApi = {
  status: () => http<FactorStatus>('GET', '/admin/api/auth/status'),
  enrolTotp: () => http<TotpEnrolment>('POST', '/admin/api/auth/totp/enrol'),
  confirmTotp: (code: string) => http<{ expires_at: string }>('POST', '/admin/api/auth/totp/confirm', { json: { code } }),
  verifyTotp: (code: string) => http<{ expires_at: string }>('POST', '/admin/api/auth/verify', { json: { code } }),
  recovery: (code: string) =>
    http<{ expires_at: string; recovery_codes_left: number }>('POST', '/admin/api/auth/recovery', { json: { code } }),
  passkeyRegisterOptions: () => http<Record<string, unknown>>('POST', '/admin/api/auth/passkey/register/options'),
  passkeyRegister: (response: unknown) =>
    http<{ expires_at: string }>('POST', '/admin/api/auth/passkey/register/verify', { json: response }),
  passkeyAuthOptions: () => http<Record<string, unknown>>('POST', '/admin/api/auth/passkey/authenticate/options'),
  passkeyAuthenticate: (response: unknown) =>
    http<{ expires_at: string }>('POST', '/admin/api/auth/passkey/authenticate/verify', { json: response }),
  leave: () => http<void>('POST', '/admin/api/auth/leave'),
  operators: () => http<{ items: Operator[] }>('GET', '/admin/api/operators'),
  addOperator: (body: { email: string; role: OperatorRole; reason?: string }) =>
    http<Operator>('POST', '/admin/api/operators', { json: body }),
  changeRole: (accountId: string, role: OperatorRole) =>
    http<Operator>('PUT', `/admin/api/operators/${encodeURIComponent(accountId)}`, { json: { role } }),
  removeOperator: (accountId: string) => http<void>('DELETE', `/admin/api/operators/${encodeURIComponent(accountId)}`),
  audit: (query: Record<string, string | number | undefined>) =>
    http<{ items: AuditEntryView[]; total: number; page: number; page_size: number }>('GET', '/admin/api/audit', { query }),
  auditCsv: (query: Record<string, string | undefined>) => http<Response>('GET', '/admin/api/audit/export', { query, raw: true }),
};

export const STATUS_KEY = ['admin', 'status'] as const;
