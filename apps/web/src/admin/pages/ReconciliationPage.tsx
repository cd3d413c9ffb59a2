import { Badge, Button, Group, NativeSelect, Stack, Text } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { Link, useSearchParams } from 'react-router-dom';
import { RECONCILIATION_KIND_LIST, type ReconciliationEntry } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { formatMoney } from '../../economy/money';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ordersApi } from '../orders-api';
import { useOrdersTexts } from '../i18n/orders-texts';

const PAGE_SIZE = 25;
const KIND_COLOR: Record<string, string> = {
  paid_not_applied: 'red',
  applied_not_paid: 'orange',
  duplicate_payment: 'grape',
  refunded_not_recorded: 'yellow',
  unconfirmed: 'gray',
};

/** Attempts whose provider state and ours differ; each row re-queries its provider. Kind and page in the URL. */
export default function ReconciliationPage() {
  const { tx, f } = useOrdersTexts();
  const { ui } = useLocaleChoice();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const kind = params.get('kind') ?? '';
  const list = useQuery({
    queryKey: ['admin', 'reconciliation', kind, page],
    queryFn: () => ordersApi.reconciliation({ kind: kind || undefined, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const go = (nextKind: string, nextPage: number) => {
    const search = new URLSearchParams();
    if (nextKind) search.set('kind', nextKind);
    if (nextPage > 1) search.set('page', String(nextPage));
    setParams(search);
  };
  const requery = useMutation({
    mutationFn: (orderId: string) => ordersApi.requery(orderId, 'reconciliation'),
    onSuccess: async (r) => {
      notifySuccess(
        f(tx.orders.requeried, {
          outcomes: r.answers.map((a) => `${a.method} ${a.provider_state ?? '?'} → ${a.outcome}`).join('; ') || '—',
        }),
      );
      await client.invalidateQueries({ queryKey: ['admin', 'reconciliation'] });
    },
    onError: notifyError,
  });
  const time = new Intl.DateTimeFormat(ui, { dateStyle: 'short', timeStyle: 'short' });
  return (
    <>
      <PageHeader title={tx.reconciliation.title} description={tx.reconciliation.description} />
      <Stack>
        <NativeSelect
          label={tx.reconciliation.kind}
          value={kind}
          onChange={(e) => go(e.currentTarget.value, 1)}
          data={[
            { value: '', label: tx.reconciliation.all },
            ...RECONCILIATION_KIND_LIST.map((k) => ({ value: k, label: tx.reconciliation.kinds[k] })),
          ]}
          maw={320}
          data-testid="reconciliation-kind"
        />
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="reconciliation" />
        ) : (
          <DataTable<ReconciliationEntry>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={200}
            idAccessor="payment_id"
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            totalRecords={list.data?.total ?? 0}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={(p) => go(kind, p)}
            paginationText={({ from, to, totalRecords }) => f(tx.orders.records, { from, to, total: totalRecords })}
            noRecordsText={tx.reconciliation.empty}
            data-testid="reconciliation-table"
            columns={[
              {
                accessor: 'kind',
                title: tx.reconciliation.columns.kind,
                render: (r) => (
                  <Badge
                    color={KIND_COLOR[r.kind]}
                    variant="light"
                    data-testid="reconciliation-row"
                    data-order-id={r.order_id}
                    data-kind={r.kind}
                  >
                    {tx.reconciliation.kinds[r.kind]}
                  </Badge>
                ),
              },
              {
                accessor: 'order_id',
                title: tx.reconciliation.columns.order,
                render: (r) => (
                  <Text
                    component={Link}
                    to={`/admin/orders?q=${encodeURIComponent(r.order_id)}&order=${encodeURIComponent(r.order_id)}`}
                    size="xs"
                    ff="monospace"
                    c="violet"
                  >
                    {r.order_id}
                  </Text>
                ),
              },
              {
                accessor: 'payment_id',
                title: tx.reconciliation.columns.payment,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
                render: (r) => (
                  <Text size="xs">
                    {tx.orders.methods[r.method as keyof typeof tx.orders.methods] ?? r.method} ·{' '}
                    {formatMoney({ amount: r.amount, currency: r.currency }, ui)}
                  </Text>
                ),
              },
              {
                accessor: 'payment_status',
                title: tx.reconciliation.columns.ours,
                render: (r) => `${r.order_status} / ${r.payment_status}`,
              },
              { accessor: 'provider_state', title: tx.reconciliation.columns.provider, render: (r) => r.provider_state ?? '—' },
              {
                accessor: 'provider_checked_at',
                title: tx.reconciliation.columns.checked,
                visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
                render: (r) => (r.provider_checked_at ? time.format(new Date(r.provider_checked_at)) : tx.reconciliation.never),
              },
              {
                accessor: 'actions',
                title: '',
                render: (r) => (
                  <Group justify="flex-end" wrap="nowrap">
                    <Button
                      size="xs"
                      variant="light"
                      loading={requery.isPending && requery.variables === r.order_id}
                      onClick={() => requery.mutate(r.order_id)}
                      data-testid="reconciliation-requery"
                    >
                      {tx.orders.requery}
                    </Button>
                  </Group>
                ),
              },
            ]}
          />
        )}
      </Stack>
    </>
  );
}
