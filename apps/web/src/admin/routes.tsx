import { lazy, type ComponentType } from 'react';
import type { OperatorPermission } from '@polyvox/contracts';
import {
  IconAdjustments,
  IconChartBar,
  IconCpu,
  IconFileInvoice,
  IconFlag,
  IconShieldLock,
  IconHome,
  IconListDetails,
  IconReceipt,
  IconScale,
  IconShieldCheck,
  IconTags,
  IconTicket,
  IconUserSearch,
  IconUsersGroup,
} from '@tabler/icons-react';
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
    path: 'overview',
    permission: 'overview.read',
    label: 'overview',
    icon: IconChartBar,
    component: lazyPage(() => import('./pages/OverviewPage')),
  },
  {
    path: 'accounts',
    permission: 'accounts.read',
    label: 'accounts',
    icon: IconUserSearch,
    component: lazyPage(() => import('./pages/AccountsPage')),
  },
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
    path: 'engines',
    permission: 'engines.manage',
    label: 'engines',
    icon: IconCpu,
    component: lazyPage(() => import('./pages/EnginesPage')),
  },
  {
    path: 'moderation',
    permission: 'moderation.manage',
    label: 'moderation',
    icon: IconShieldCheck,
    component: lazyPage(() => import('./pages/ModerationPage')),
  },
  {
    path: 'settings',
    permission: 'settings.manage',
    label: 'settings',
    icon: IconAdjustments,
    component: lazyPage(() => import('./pages/SettingsPage')),
  },
  {
    path: 'codes',
    permission: 'codes.manage',
    label: 'codes',
    icon: IconTicket,
    component: lazyPage(() => import('./pages/CodesPage')),
  },
  {
    path: 'catalog',
    permission: 'catalog.manage',
    label: 'catalog',
    icon: IconTags,
    component: lazyPage(() => import('./pages/CatalogPage')),
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
  {
    path: 'reports',
    permission: 'reports.handle',
    label: 'reports',
    icon: IconFlag,
    component: lazyPage(() => import('./pages/ReportsPage')),
  },
  {
    path: 'protected-voices',
    permission: 'voices.takedown',
    label: 'protectedVoices',
    icon: IconShieldLock,
    component: lazyPage(() => import('./pages/ProtectedVoicesPage')),
  },
];
