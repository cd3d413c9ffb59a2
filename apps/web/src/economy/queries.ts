import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/errors';
import {
  fetchCurrentStats,
  fetchDayCredits,
  fetchOrder,
  listApiKeys,
  listOrders,
  listPaymentMethods,
  listProducts,
  listRecords,
  type ProductKind,
  type RecordFilters,
} from '../api/economy';
import { useLocaleChoice } from '../i18n/hooks';
import { isFinal, ORDER_POLL_MS } from './checkout';

/** Every economy query starts with this key, so one invalidation refreshes them all after a purchase. */
export const ECONOMY_KEY = 'economy';

export function useProducts(kind: ProductKind) {
  // Names and the chosen price depend on the request's language.
  const { ui } = useLocaleChoice();
  return useQuery({
    queryKey: [ECONOMY_KEY, 'products', kind, ui],
    queryFn: ({ signal }) => listProducts(kind, signal),
    staleTime: 5 * 60_000,
  });
}

export function usePaymentMethods(enabled: boolean) {
  return useQuery({
    queryKey: [ECONOMY_KEY, 'payment-methods'],
    queryFn: ({ signal }) => listPaymentMethods(signal),
    staleTime: 5 * 60_000,
    enabled,
  });
}

/** The order cannot be followed: it does not exist or is not the caller's. */
export function orderGone(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 403 || error.status === 401);
}

export function useOrder(id: string) {
  return useQuery({
    queryKey: [ECONOMY_KEY, 'order', id],
    queryFn: ({ signal }) => fetchOrder(id, signal),
    // Followed until final. A missing order (404) or one not the caller's (403) stops it; a failed poll (a network
    // blip, a busy server) does not: the page would otherwise wait forever on a payment that has gone through.
    refetchInterval: (query) => (isFinal(query.state.data) || orderGone(query.state.error) ? false : ORDER_POLL_MS),
    enabled: id !== '',
    meta: { silent: true },
    retry: false,
  });
}

export function useOrders(start: number, limit: number) {
  return useQuery({
    queryKey: [ECONOMY_KEY, 'orders', start, limit],
    queryFn: ({ signal }) => listOrders(start, limit, signal),
    placeholderData: keepPreviousData,
  });
}

export function useRecords(page: number, pageSize: number, filters: RecordFilters) {
  return useQuery({
    queryKey: [ECONOMY_KEY, 'records', page, pageSize, filters],
    queryFn: ({ signal }) => listRecords(page, pageSize, filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useDayCredits(days: number) {
  return useQuery({
    queryKey: [ECONOMY_KEY, 'day-credits', days],
    queryFn: ({ signal }) => fetchDayCredits(days, signal),
    placeholderData: keepPreviousData,
  });
}

export function useCurrentStats() {
  return useQuery({ queryKey: [ECONOMY_KEY, 'current'], queryFn: ({ signal }) => fetchCurrentStats(signal) });
}

export function useApiKeys() {
  return useQuery({ queryKey: [ECONOMY_KEY, 'keys'], queryFn: ({ signal }) => listApiKeys(signal) });
}
