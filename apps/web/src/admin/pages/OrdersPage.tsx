import { useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  Drawer,
  Group,
  Modal,
  NativeSelect,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { CURRENCIES, ORDER_STATUSES, PAYMENT_METHODS, type AdminOrder, type OrderEvent } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { formatMoney } from '../../economy/money';
import { useLocaleChoice } from '../../i18n/hooks';
import { isApiError } from '../../api/errors';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ordersApi } from '../orders-api';
import { useOrdersTexts } from '../i18n/orders-texts';

// `since`/`until`: the console's HTTP client sends its own `from=web` on every request.
const FILTERS = ['q', 'status', 'method', 'currency', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];
const PAGE_SIZE = 25;
const STATUS_COLOR: Record<string, string> = {
  pending_payment: 'yellow',
  successful: 'teal',
  failed: 'red',
  expired: 'gray',
  refunded: 'grape',
};

function useTime() {
  const { ui } = useLocaleChoice();
  const format = new Intl.DateTimeFormat(ui, { dateStyle: 'short', timeStyle: 'medium' });
  return (iso: string | null) => (iso ? format.format(new Date(iso)) : '—');
}

function StatusBadge({ order }: { order: Pick<AdminOrder, 'status' | 'refunded_at'> }) {
  const { tx } = useOrdersTexts();
  const status = order.refunded_at ? 'refunded' : order.status;
  return (
    <Badge variant="light" color={STATUS_COLOR[status] ?? 'gray'} data-testid="admin-order-status" data-status={status}>
      {tx.orders.statuses[status as keyof typeof tx.orders.statuses] ?? status}
    </Badge>
  );
}

/** The refund, previewed before it is confirmed: the amount shown is the amount the server refunds, or it refuses. */
function RefundDialog({ orderId, onClose }: { orderId: string; onClose: () => void }) {
  const { tx, f } = useOrdersTexts();
  const { ui } = useLocaleChoice();
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const preview = useQuery({
    queryKey: ['admin', 'refund-preview', orderId],
    queryFn: () => ordersApi.refundPreview(orderId),
    gcTime: 0,
  });
  const money = (amount: number) => formatMoney({ amount, currency: preview.data?.currency ?? 'USD' }, ui);
  const refund = useMutation({
    mutationFn: () => ordersApi.refund(orderId, { reason: reason.trim(), expected_amount: preview.data!.amount }),
    onSuccess: async (r) => {
      notifySuccess(f(tx.refund.done, { amount: formatMoney({ amount: r.amount, currency: r.currency }, ui) }));
      await client.invalidateQueries({ queryKey: ['admin', 'orders'] });
      onClose();
    },
    onError: (e) => {
      if (isApiError(e) && e.code === 'VALIDATION_FAILED') {
        notifySuccess(tx.refund.changed);
        void preview.refetch();
      } else notifyError(e);
    },
  });
  const p = preview.data;
  return (
    <Modal opened onClose={onClose} title={f(tx.refund.title, { id: orderId })} data-testid="refund-dialog">
      {preview.isPending ? (
        <Skeleton h={140} />
      ) : preview.isError || !p ? (
        <Alert color="red">{tx.refund.notRefundable}</Alert>
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setTried(true);
            if (reason.trim()) refund.mutate();
          }}
        >
          <Stack>
            <SimpleGrid cols={2} spacing="xs" data-testid="refund-preview" data-amount={p.amount}>
              <Text size="sm" c="dimmed">
                {tx.refund.used}
              </Text>
              <Text size="sm">
                {p.used.toLocaleString(ui)} ({tx.refund.usedAtBasic}: {p.used_at_basic.toLocaleString(ui)})
              </Text>
              <Text size="sm" c="dimmed">
                {tx.refund.deducted}
              </Text>
              <Text size="sm">{p.deducted.toLocaleString(ui)}</Text>
              <Text size="sm" c="dimmed">
                {tx.refund.balance}
              </Text>
              <Text size="sm">{p.balance.toLocaleString(ui)}</Text>
              <Text size="sm" c="dimmed">
                {tx.refund.amount}
              </Text>
              <Text size="sm" fw={700} data-testid="refund-amount">
                {money(p.amount)} {f(tx.refund.of, { total: money(p.total) })}
              </Text>
            </SimpleGrid>
            <Textarea
              label={tx.refund.reason}
              value={reason}
              onChange={(e) => setReason(e.currentTarget.value)}
              maxLength={500}
              required
              autosize
              minRows={2}
              error={tried && !reason.trim() ? tx.refund.reasonRequired : null}
              data-testid="refund-reason"
            />
            <Group justify="flex-end">
              <Button type="submit" color="red" loading={refund.isPending} data-testid="refund-confirm">
                {f(tx.refund.confirm, { amount: money(p.amount) })}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

function EventLine({ event }: { event: OrderEvent }) {
  const { tx, f } = useOrdersTexts();
  const time = useTime();
  return (
    <Stack gap={2} data-testid="order-event" data-outcome={event.outcome} data-verification={event.verification}>
      <Group gap="xs">
        <Badge size="sm" color={event.verification === 'verified' ? 'teal' : 'red'} variant="light">
          {event.verification === 'verified' ? tx.orders.verified : tx.orders.forged}
        </Badge>
        <Text size="sm" fw={500}>
          {event.kind} · {event.outcome}
        </Text>
      </Group>
      <Text size="xs" c="dimmed">
        {time(event.created_at)} · {event.method}
        {event.provider_state ? ` · ${f(tx.orders.providerState, { state: event.provider_state })}` : ''}
      </Text>
      {event.detail && (
        <Code block fz="xs">
          {JSON.stringify(event.detail)}
        </Code>
      )}
    </Stack>
  );
}

/** One order: its attempts, the provider's events, the invoice; the refund and re-query actions. */
function OrderDrawer({ orderId, onClose }: { orderId: string; onClose: () => void }) {
  const { tx, f } = useOrdersTexts();
  const { ui } = useLocaleChoice();
  const time = useTime();
  const client = useQueryClient();
  const [refunding, setRefunding] = useState(false);
  const detail = useQuery({ queryKey: ['admin', 'orders', 'detail', orderId], queryFn: () => ordersApi.order(orderId) });
  const requery = useMutation({
    mutationFn: () => ordersApi.requery(orderId),
    onSuccess: async (r) => {
      notifySuccess(
        f(tx.orders.requeried, {
          outcomes: r.answers.map((a) => `${a.method} ${a.provider_state ?? '?'} → ${a.outcome}`).join('; ') || '—',
        }),
      );
      await client.invalidateQueries({ queryKey: ['admin', 'orders'] });
      await client.invalidateQueries({ queryKey: ['admin', 'reconciliation'] });
    },
    onError: notifyError,
  });
  const d = detail.data;
  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size="lg"
      title={f(tx.orders.drawerTitle, { id: orderId })}
      data-testid="order-drawer"
    >
      {detail.isPending ? (
        <Skeleton h={300} />
      ) : detail.isError || !d ? (
        <LoadError error={detail.error} onRetry={() => void detail.refetch()} what="order" />
      ) : (
        <Stack>
          <Group justify="space-between" wrap="wrap">
            <Stack gap={2}>
              <Text size="sm">{d.order.account_email ?? d.order.account_id}</Text>
              <Text size="sm">
                {d.order.product} · {formatMoney({ amount: d.order.amount, currency: d.order.currency }, ui)}
              </Text>
              <StatusBadge order={d.order} />
              {d.invoice && <Text size="xs">{f(tx.orders.invoice, { status: d.invoice.status })}</Text>}
            </Stack>
            <Group gap="xs">
              <Button
                variant="light"
                size="xs"
                loading={requery.isPending}
                onClick={() => requery.mutate()}
                data-testid="order-requery"
              >
                {tx.orders.requery}
              </Button>
              {d.order.status === 'successful' && !d.order.refunded_at && (
                <Button color="red" variant="light" size="xs" onClick={() => setRefunding(true)} data-testid="order-refund">
                  {tx.orders.refund}
                </Button>
              )}
            </Group>
          </Group>
          <Paper withBorder p="sm" radius="md">
            <Text fw={600} size="sm" mb="xs">
              {tx.orders.payments}
            </Text>
            <Stack gap={4}>
              {d.payments.map((p) => (
                <Text key={p.id} size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                  {p.id} · {p.method} · {formatMoney({ amount: p.amount, currency: p.currency }, ui)} · {p.status}
                  {p.provider_state ? ` · ${f(tx.orders.providerState, { state: p.provider_state })}` : ''}
                </Text>
              ))}
            </Stack>
          </Paper>
          <Text fw={600} size="sm">
            {tx.orders.events}
          </Text>
          {d.events.length === 0 ? (
            <Text size="sm" c="dimmed">
              {tx.orders.noEvents}
            </Text>
          ) : (
            <Stack gap="sm">
              {d.events.map((e) => (
                <Paper key={e.id} withBorder p="xs" radius="sm">
                  <EventLine event={e} />
                </Paper>
              ))}
            </Stack>
          )}
          <Text size="xs" c="dimmed">
            {time(d.order.created_at)}
          </Text>
        </Stack>
      )}
      {refunding && (
        <RefundDialog
          orderId={orderId}
          onClose={() => {
            setRefunding(false);
            void detail.refetch();
          }}
        />
      )}
    </Drawer>
  );
}

/**
 * Orders: filters and page in the URL's query (#/admin/orders?status=successful&page=2), paged on the server; a row
 * opens its drawer (`?order=…` in the URL too).
 */
export default function OrdersPage() {
  const { tx, f } = useOrdersTexts();
  const { ui } = useLocaleChoice();
  const time = useTime();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const filters = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Record<Filter, string>;
  const [draft, setDraft] = useState(filters);
  const open = params.get('order');
  const query = Object.fromEntries(FILTERS.map((k) => [k, filters[k] || undefined])) as Record<Filter, string | undefined>;
  const list = useQuery({
    queryKey: ['admin', 'orders', query, page],
    queryFn: () => ordersApi.orders({ ...query, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const go = (next: Record<Filter, string>, nextPage: number, order: string | null = null) => {
    const search = new URLSearchParams();
    for (const k of FILTERS) if (next[k].trim()) search.set(k, next[k].trim());
    if (nextPage > 1) search.set('page', String(nextPage));
    if (order) search.set('order', order);
    setParams(search);
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go(draft, 1);
  };
  const select = (k: Filter, label: string, values: readonly string[], names?: Record<string, string>) => (
    <NativeSelect
      label={label}
      value={draft[k]}
      onChange={(e) => setDraft({ ...draft, [k]: e.currentTarget.value })}
      data={[{ value: '', label: tx.orders.any }, ...values.map((v) => ({ value: v, label: names?.[v] ?? v }))]}
      data-testid={`orders-filter-${k}`}
      style={{ flex: '1 1 9rem' }}
    />
  );
  return (
    <>
      <PageHeader title={tx.orders.title} description={tx.orders.description} />
      <Stack>
        <Paper withBorder p="md" radius="md">
          <form onSubmit={apply}>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label={tx.orders.search}
                value={draft.q}
                onChange={(e) => setDraft({ ...draft, q: e.currentTarget.value })}
                data-testid="orders-filter-q"
                style={{ flex: '2 1 14rem' }}
              />
              {select('status', tx.orders.status, [...ORDER_STATUSES, 'refunded'], tx.orders.statuses)}
              {select('method', tx.orders.method, PAYMENT_METHODS, tx.orders.methods)}
              {select('currency', tx.orders.currency, CURRENCIES)}
              <TextInput
                type="date"
                label={tx.orders.from}
                value={draft.since}
                onChange={(e) => setDraft({ ...draft, since: e.currentTarget.value })}
                data-testid="orders-filter-since"
                style={{ flex: '1 1 9rem' }}
              />
              <TextInput
                type="date"
                label={tx.orders.to}
                value={draft.until}
                onChange={(e) => setDraft({ ...draft, until: e.currentTarget.value })}
                data-testid="orders-filter-until"
                style={{ flex: '1 1 9rem' }}
              />
              <Group gap="xs">
                <Button type="submit" data-testid="orders-apply">
                  {tx.orders.apply}
                </Button>
                <Button
                  variant="subtle"
                  onClick={() => {
                    const empty = Object.fromEntries(FILTERS.map((k) => [k, ''])) as Record<Filter, string>;
                    setDraft(empty);
                    go(empty, 1);
                  }}
                >
                  {tx.orders.clear}
                </Button>
              </Group>
            </Group>
          </form>
        </Paper>
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="orders" />
        ) : (
          <DataTable<AdminOrder>
            withTableBorder
            borderRadius="md"
            striped
            highlightOnHover
            minHeight={200}
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            totalRecords={list.data?.total ?? 0}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={(p) => go(filters, p)}
            paginationText={({ from, to, totalRecords }) => f(tx.orders.records, { from, to, total: totalRecords })}
            noRecordsText={tx.orders.empty}
            onRowClick={({ record }) => go(filters, page, record.id)}
            data-testid="admin-orders-table"
            columns={[
              {
                accessor: 'id',
                title: tx.orders.columns.id,
                render: (o) => (
                  <Text size="xs" ff="monospace" data-testid="admin-order-row" data-order-id={o.id}>
                    {o.id}
                  </Text>
                ),
              },
              { accessor: 'account_email', title: tx.orders.columns.account, render: (o) => o.account_email ?? o.account_id },
              {
                accessor: 'product',
                title: tx.orders.columns.product,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
              },
              {
                accessor: 'amount',
                title: tx.orders.columns.amount,
                noWrap: true,
                render: (o) => formatMoney({ amount: o.amount, currency: o.currency }, ui),
              },
              {
                accessor: 'method',
                title: tx.orders.columns.method,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.sm})`,
                render: (o) => (o.method ? (tx.orders.methods[o.method] ?? o.method) : '—'),
              },
              { accessor: 'status', title: tx.orders.columns.status, render: (o) => <StatusBadge order={o} /> },
              {
                accessor: 'created_at',
                title: tx.orders.columns.created,
                noWrap: true,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
                render: (o) => time(o.created_at),
              },
            ]}
          />
        )}
      </Stack>
      {open && <OrderDrawer orderId={open} onClose={() => go(filters, page)} />}
    </>
  );
}
