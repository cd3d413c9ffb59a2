import { lazy, Suspense, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Badge, Button, Group, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { fetchReceipt, ORDER_STATUSES, PAYMENT_METHODS, type Order } from '../../../api/economy';
import { saveBlob } from '../../../economy/download';
import { notifyError } from '../../../lib/notify';
import { EmptyTable } from '../../../components/EmptyTable';
import { WideTable } from '../../../components/WideTable';
import { LoadError } from '../../../components/LoadError';
import { Pager } from '../../../components/Pager';
import { PageHeader } from '../../../components/PageHeader';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber, planKey } from '../../../lib/format';
import { formatMoney } from '../../../economy/money';
import { useOrders } from '../../../economy/queries';
import { formatDateTime, pageCount } from '../../../economy/usage';

const PAGE_SIZE = 20;
// The invoice form is opened by few: its code comes with the first opening.
const InvoiceDialog = lazy(() => import('../../../economy/InvoiceDialog').then((m) => ({ default: m.InvoiceDialog })));
const STATUS_COLOR: Record<string, string> = {
  pending_payment: 'yellow',
  successful: 'teal',
  failed: 'red',
  expired: 'gray',
};

function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  const known = (ORDER_STATUSES as readonly string[]).includes(status);
  return (
    <Badge
      variant="light"
      color={STATUS_COLOR[status] ?? 'gray'}
      data-testid="order-status"
      data-status={status}
      // The whole status, never "AWAITING PAYME…": the cell gives it the room.
      styles={{ root: { maxWidth: 'none', flexShrink: 0 }, label: { overflow: 'visible' } }}
    >
      {known ? t(`orders.status.${status as (typeof ORDER_STATUSES)[number]}`) : status}
    </Badge>
  );
}

function MethodLabel({ method }: { method: string | null }) {
  const { t } = useTranslation();
  if (!method) return t('common.none');
  return (PAYMENT_METHODS as readonly string[]).includes(method)
    ? t(`checkout.methods.${method as (typeof PAYMENT_METHODS)[number]}`)
    : method;
}

/** A plan by its localized name, a credit pack by its credits. */
function ProductLabel({ order }: { order: Order }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const plan = order.plan ? planKey(order.plan) : null;
  if (plan) return t(`plans.${plan}`);
  if (typeof order.credits === 'number') return t('pricing.creditsAmount', { credits: formatNumber(order.credits, ui) });
  return order.product;
}

/** A paid order's receipt (PDF) and its 发票. */
function PaidActions({ order }: { order: Order }) {
  const { t } = useTranslation();
  const [invoiceOpen, setInvoiceOpen] = useState(false);
  const receipt = useMutation({
    mutationFn: () => fetchReceipt(order.id),
    onSuccess: (blob) => saveBlob(blob, `receipt-${order.id}.pdf`),
    onError: notifyError,
  });
  const invoice = order.invoice_status;
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="light" onClick={() => receipt.mutate()} loading={receipt.isPending} data-testid="order-receipt">
        {t('orders.receipt')}
      </Button>
      {!order.refunded_at && (
        <Button
          size="xs"
          variant="subtle"
          onClick={() => setInvoiceOpen(true)}
          data-testid="order-invoice"
          data-invoice-status={invoice ?? 'none'}
        >
          {invoice ? t(`invoice.status.${invoice}`) : t('orders.invoice')}
        </Button>
      )}
      {invoiceOpen && (
        <Suspense fallback={null}>
          <InvoiceDialog orderId={order.id} opened={invoiceOpen} onClose={() => setInvoiceOpen(false)} />
        </Suspense>
      )}
    </Group>
  );
}

function OrderRow({ order }: { order: Order }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  return (
    <Table.Tr data-testid="order-row" data-order-id={order.id}>
      <Table.Td>
        <Text component={Link} to={`/app/orders/${encodeURIComponent(order.id)}/result`} size="sm" ff="monospace" c="violet">
          {order.id}
        </Text>
      </Table.Td>
      <Table.Td>
        <ProductLabel order={order} />
      </Table.Td>
      <Table.Td data-testid="order-amount">{formatMoney({ amount: order.amount, currency: order.currency }, ui)}</Table.Td>
      <Table.Td>
        <MethodLabel method={order.method} />
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <StatusBadge status={order.status} />
      </Table.Td>
      <Table.Td>{formatDateTime(order.created_at, ui)}</Table.Td>
      <Table.Td>{formatDateTime(order.paid_at, ui) ?? t('common.none')}</Table.Td>
      <Table.Td>
        {order.status === 'pending_payment' && (
          <Button
            component={Link}
            to={`/app/orders/${encodeURIComponent(order.id)}/result`}
            size="xs"
            variant="light"
            data-testid="order-continue"
          >
            {t('orders.continuePayment')}
          </Button>
        )}
        {order.status === 'successful' && <PaidActions order={order} />}
      </Table.Td>
    </Table.Tr>
  );
}

/** The account's orders, newest first, a page at a time (`start`, `limit`). */
export function OrdersPage() {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const orders = useOrders((page - 1) * PAGE_SIZE, PAGE_SIZE);
  const { data, isPending } = orders;
  const columns = [
    t('orders.colOrder'),
    t('orders.colProduct'),
    t('orders.colAmount'),
    t('orders.colMethod'),
    t('orders.colStatus'),
    t('orders.colCreated'),
    t('orders.colPaid'),
    t('orders.actions'),
  ];
  const items = data?.items ?? [];

  return (
    <Stack data-testid="orders-page">
      <PageHeader title={t('orders.title')} description={t('orders.description')} />
      {isPending ? (
        <Skeleton h={200} radius="md" />
      ) : orders.isError && !data ? (
        <LoadError error={orders.error} onRetry={() => void orders.refetch()} retrying={orders.isFetching} what="orders" />
      ) : items.length === 0 ? (
        <EmptyTable columns={columns} title={t('orders.emptyTitle')} body={t('orders.emptyBody')} />
      ) : (
        <Paper withBorder radius="md">
          <WideTable minWidth={900}>
            <Table striped highlightOnHover data-testid="orders-table" data-total={data?.total ?? 0}>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((c) => (
                    <Table.Th key={c}>{c}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((order) => (
                  <OrderRow key={order.id} order={order} />
                ))}
              </Table.Tbody>
            </Table>
          </WideTable>
        </Paper>
      )}
      {(data?.total ?? 0) > PAGE_SIZE && (
        <Group justify="flex-end">
          <Pager total={pageCount(data?.total ?? 0, PAGE_SIZE)} value={page} onChange={setPage} data-testid="orders-pagination" />
        </Group>
      )}
    </Stack>
  );
}
