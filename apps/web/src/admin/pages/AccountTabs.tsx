import 'mantine-datatable/styles.css';
import { useState, type ReactNode } from 'react';
import { Stack, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { LoadError } from '../../components/LoadError';
import { WideTable } from '../../components/WideTable';
import { formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { adminAccountsApi } from '../accounts-api';
import { fill } from '../i18n/texts';
import { ACCOUNTS_TEXTS, SCROLL_PROPS } from '../accounts-shared';

type Texts = (typeof ACCOUNTS_TEXTS)['en'];
const PAGE_SIZE = 20;

export function Ledger({ id, texts }: { id: string; texts: Texts }) {
  const { ui } = useLocaleChoice();
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ['admin', 'account', id, 'ledger', page],
    queryFn: () => adminAccountsApi.ledger(id, page, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  if (query.isError) return <LoadError error={query.error} onRetry={() => void query.refetch()} what="ledger" />;
  return (
    <Stack gap="xs">
      {query.data && (
        <Text size="sm" c="dimmed" data-testid="ledger-sum">
          {fill(texts.ledgerSum, { sum: formatNumber(query.data.ledger_sum, ui) })}
        </Text>
      )}
      <DataTable
        withTableBorder
        scrollAreaProps={SCROLL_PROPS}
        borderRadius="md"
        minHeight={120}
        fetching={query.isFetching}
        records={query.data?.items ?? []}
        totalRecords={query.data?.total ?? 0}
        page={page}
        onPageChange={setPage}
        recordsPerPage={PAGE_SIZE}
        noRecordsText={texts.empty}
        customRowAttributes={(r) => ({ 'data-testid': 'ledger-row', 'data-kind': r.kind, 'data-amount': r.amount })}
        columns={[
          { accessor: 'created_at', title: texts.time, render: (r) => formatDateTime(r.created_at, ui) },
          { accessor: 'kind', title: texts.kind, render: (r) => `${r.kind}${r.record_type ? ` · ${r.record_type}` : ''}` },
          { accessor: 'amount', title: texts.amount, textAlign: 'right', render: (r) => formatNumber(r.amount, ui) },
          {
            accessor: 'balance_after',
            title: texts.balanceAfter,
            textAlign: 'right',
            visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.sm})`,
            render: (r) => formatNumber(r.balance_after, ui),
          },
          { accessor: 'reason', title: texts.reason, render: (r) => r.reason ?? r.note ?? texts.none },
        ]}
      />
    </Stack>
  );
}

export function Orders({ id, texts }: { id: string; texts: Texts }) {
  const { ui } = useLocaleChoice();
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ['admin', 'account', id, 'orders', page],
    queryFn: () => adminAccountsApi.orders(id, page, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  if (query.isError) return <LoadError error={query.error} onRetry={() => void query.refetch()} what="orders" />;
  return (
    <DataTable
      withTableBorder
      scrollAreaProps={SCROLL_PROPS}
      borderRadius="md"
      minHeight={120}
      fetching={query.isFetching}
      records={query.data?.items ?? []}
      totalRecords={query.data?.total ?? 0}
      page={page}
      onPageChange={setPage}
      recordsPerPage={PAGE_SIZE}
      noRecordsText={texts.empty}
      customRowAttributes={() => ({ 'data-testid': 'order-row' })}
      columns={[
        { accessor: 'id', title: texts.orders },
        { accessor: 'product_id', title: texts.product, visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.sm})` },
        {
          accessor: 'amount',
          title: texts.amount,
          textAlign: 'right',
          render: (r) => `${(r.amount / 100).toFixed(2)} ${r.currency}`,
        },
        { accessor: 'status', title: texts.status },
        {
          accessor: 'method',
          title: texts.method,
          visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
          render: (r) => r.method ?? texts.none,
        },
        { accessor: 'created_at', title: texts.created, render: (r) => formatDateTime(r.created_at, ui) },
      ]}
    />
  );
}

/** A short list (keys, voices, samples, sessions) as a plain table that scrolls sideways on a phone. */
export function SimpleList({
  heads,
  rows,
  empty,
  testId,
}: {
  heads: string[];
  rows: ReactNode[][];
  empty: string;
  testId: string;
}) {
  if (!rows.length) return <Text c="dimmed">{empty}</Text>;
  return (
    <WideTable minWidth={560}>
      <Table striped data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {heads.map((h) => (
              <Table.Th key={h}>{h}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((cells, i) => (
            <Table.Tr key={i}>
              {cells.map((c, j) => (
                <Table.Td key={j}>{c}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </WideTable>
  );
}
