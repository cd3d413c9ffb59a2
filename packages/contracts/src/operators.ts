export const OPERATOR_ROLES = ['owner', 'admin', 'support', 'finance'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export const OPERATOR_PERMISSIONS = [
  'overview.read',   // dashboards
  'accounts.read',   // search, account page, ledger, orders, keys, voices of an account
  'accounts.manage', // disable / re-enable, end sessions
  'credits.adjust',  // grant / deduct credits
  'orders.read',     // orders, provider events, reconciliation
  'orders.refund',   // refunds, re-query provider
  'invoices.manage', // 发票 requests: mark issued, attach file
  'catalog.manage',  // products, plans, prices
  'codes.manage',    // redemption code batches
  'voices.takedown', // take down a cloned/designed voice
  'reports.handle',  // complaints/reports
  'moderation.manage', // moderation lists, provider failure modes, retention, the refused texts
  'engines.manage',  // engines, models, remote providers
  'settings.manage', // runtime settings
  'operators.manage',// name/change/remove operators (owner only)
  'audit.read',      // the audit trail
] as const;
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number];
export const ROLE_PERMISSIONS: Record<OperatorRole, readonly OperatorPermission[]> = {
  owner: OPERATOR_PERMISSIONS,
  admin: OPERATOR_PERMISSIONS.filter((p) => p !== 'operators.manage'),
  support: ['overview.read', 'accounts.read', 'accounts.manage', 'orders.read', 'voices.takedown', 'reports.handle', 'moderation.manage', 'audit.read'],
  finance: ['overview.read', 'accounts.read', 'credits.adjust', 'orders.read', 'orders.refund', 'invoices.manage', 'catalog.manage', 'codes.manage', 'audit.read'],
};
