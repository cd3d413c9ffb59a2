import { lazy, type ComponentType } from 'react';
import type { OperatorPermission } from '@polyvox/contracts';
import { IconFileInvoice, IconHome, IconListDetails, IconReceipt, IconScale, IconUsersGroup } from '@tabler/icons-react';
import type { AdminMessages } from './i18n/types';

/**
 * The operator console's pages: one line each (its path under #/admin, the permission that shows it, the nav label
 * and icon, the page). The nav lists the pages the operator's role may open; the server checks the role again.
 */
export interface AdminPage {
  path: string;
  /** null: every operator. */
  permission: OperatorPermission | null;
  label: keyof AdminMessages['nav'];
  icon: ComponentType<{ size?: number; stroke?: number }>;
  component: ComponentType;
}

const lazyPage = (load: () => Promise<{ default: ComponentType }>) => lazy(load);

export const ADMIN_PAGES: AdminPage[] = [
  { path: '', permission: null, label: 'home', icon: IconHome, component: lazyPage(() => import('./pages/HomePage')) },
  {
    path: 'operators',
    permission: 'operators.manage',
    label: 'operators',
    icon: IconUsersGroup,
    component: lazyPage(() => import('./pages/OperatorsPage')),
  },
  {
    path: 'audit',
    permission: 'audit.read',
    label: 'audit',
    icon: IconListDetails,
    component: lazyPage(() => import('./pages/AuditPage')),
  },
  {
    path: 'orders',
    permission: 'orders.read',
    label: 'orders',
    icon: IconReceipt,
    component: lazyPage(() => import('./pages/OrdersPage')),
  },
  {
    path: 'reconciliation',
    permission: 'orders.read',
    label: 'reconciliation',
    icon: IconScale,
    component: lazyPage(() => import('./pages/ReconciliationPage')),
  },
  {
    path: 'invoices',
    permission: 'invoices.manage',
    label: 'invoices',
    icon: IconFileInvoice,
    component: lazyPage(() => import('./pages/InvoicesPage')),
  },
];
