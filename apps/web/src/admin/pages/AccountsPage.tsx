import 'mantine-datatable/styles.css';
import { useEffect, useState } from 'react';
import { Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useQuery, keepPreviousData } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import type { AdminAccountSummary } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { adminAccountsApi, type AccountSearch } from '../accounts-api';
import { fill, useTexts } from '../i18n/texts';
import { AccountPage } from './AccountPage';
import { ACCOUNTS_TEXTS, SCROLL_PROPS, StatusBadge } from '../accounts-shared';

const PAGE_SIZES = [20, 50, 100];

/** The search as the URL keeps it (`#/admin/accounts?q=…&status=…&page=…&size=…`), so a link or reload shows the same. */
function readSearch(params: URLSearchParams): AccountSearch {
  const status = params.get('status');
  const page = Number(params.get('page'));
  const size = Number(params.get('size'));
  return {
    q: params.get('q') ?? '',
    status: status === 'active' || status === 'disabled' ? status : '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    pageSize: PAGE_SIZES.includes(size) ? size : 20,
  };
}

/** Accounts found by email, phone, account id, API key prefix or order id; paged on the server, filters in the URL. */
export function AccountsPage() {
  const texts = useTexts(ACCOUNTS_TEXTS);
  const { ui } = useLocaleChoice();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const search = readSearch(params);
  const [draft, setDraft] = useState(search.q);
  useEffect(() => setDraft(search.q), [search.q]);

  const update = (patch: Partial<AccountSearch>) => {
    const next = { ...search, ...patch };
    const out = new URLSearchParams();
    if (next.q) out.set('q', next.q);
    if (next.status) out.set('status', next.status);
    if (next.page > 1) out.set('page', String(next.page));
    if (next.pageSize !== 20) out.set('size', String(next.pageSize));
    setParams(out);
  };

  const query = useQuery({
    queryKey: ['admin', 'accounts', search],
    queryFn: () => adminAccountsApi.search(search),
    placeholderData: keepPreviousData,
  });

  return (
    <Stack gap="md">
      <PageHeader title={texts.title} description={texts.description} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          update({ q: draft.trim(), page: 1 });
        }}
      >
        <Group align="flex-end" wrap="wrap" gap="sm">
          <TextInput
            label={texts.search}
            placeholder={texts.searchPlaceholder}
            value={draft}
            onChange={(e) => setDraft(e.currentTarget.value)}
            leftSection={<IconSearch size={16} />}
            style={{ flex: '1 1 260px' }}
            data-testid="account-search"
          />
          <NativeSelect
            label={texts.status}
            value={search.status}
            onChange={(e) => update({ status: e.currentTarget.value as AccountSearch['status'], page: 1 })}
            data={[
              { value: '', label: texts.anyStatus },
              { value: 'active', label: texts.active },
              { value: 'disabled', label: texts.disabled },
            ]}
            data-testid="account-status-filter"
          />
          <Button type="submit" data-testid="account-search-submit">
            {texts.search}
          </Button>
        </Group>
      </form>
      {query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} what="accounts" />
      ) : (
        <DataTable<AdminAccountSummary>
          withTableBorder
          scrollAreaProps={SCROLL_PROPS}
          borderRadius="md"
          striped
          highlightOnHover
          minHeight={160}
          fetching={query.isFetching}
          records={query.data?.items ?? []}
          idAccessor="id"
          totalRecords={query.data?.total ?? 0}
          page={search.page}
          onPageChange={(page) => update({ page })}
          recordsPerPage={search.pageSize}
          recordsPerPageOptions={PAGE_SIZES}
          onRecordsPerPageChange={(pageSize) => update({ pageSize, page: 1 })}
          paginationText={({ totalRecords }) => fill(texts.total, { total: formatNumber(totalRecords, ui) })}
          noRecordsText={texts.noResults}
          onRowClick={({ record }) => void navigate(`/admin/accounts/${record.id}`)}
          rowStyle={() => ({ cursor: 'pointer' })}
          customRowAttributes={(record) => ({ 'data-testid': 'account-row', 'data-id': record.id })}
          columns={[
            {
              accessor: 'email',
              title: texts.email,
              render: (r) => (
                <Stack gap={0}>
                  <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
                    {r.email ?? (r.anonymous ? texts.anonymous : texts.none)}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {r.id}
                  </Text>
                </Stack>
              ),
            },
            {
              accessor: 'mobile',
              title: texts.phone,
              visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
              render: (r) => r.mobile ?? texts.none,
            },
            {
              accessor: 'credits',
              title: texts.credits,
              textAlign: 'right',
              render: (r) => formatNumber(r.credits, ui),
            },
            { accessor: 'vip_level', title: texts.plan, visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.sm})` },
            { accessor: 'status', title: texts.status, render: (r) => <StatusBadge status={r.status} /> },
            {
              accessor: 'created_at',
              title: texts.created,
              visibleMediaQuery: (theme) => `(min-width: ${theme.breakpoints.md})`,
              render: (r) => formatDateTime(r.created_at, ui),
            },
          ]}
        />
      )}
    </Stack>
  );
}
/** `#/admin/accounts` lists accounts; `#/admin/accounts/<id>` is one account (the shell matches the first segment). */
export default function AccountsRoute() {
  const { pathname } = useLocation();
  const id = pathname.split('/')[3];
  return id ? <AccountPage id={decodeURIComponent(id)} /> : <AccountsPage />;
}
