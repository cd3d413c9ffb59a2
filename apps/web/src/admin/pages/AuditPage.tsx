import { useState, type FormEvent } from 'react';
import { Button, Code, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { AuditEntryView } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { notifyError } from '../../lib/notify';
import { useLocaleChoice } from '../../i18n/hooks';
import { adminApi } from '../api';

const FILTERS = ['operator', 'action', 'target_type', 'target_id', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];
const PAGE_SIZE = 25;

const short = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value));
/** A date field's value (YYYY-MM-DD): the server reads it as the start of that day (UTC). */
const day = (value: string | null) => value || undefined;

/**
 * The audit trail: filters and page kept in the URL's query (#/admin/audit?action=…&page=2), paged on the server, and
 * exported as CSV with the same filters.
 */
export default function AuditPage() {
  const { t } = useTranslation('admin');
  const { ui } = useLocaleChoice();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<Filter, string>;
  const [draft, setDraft] = useState(filters);
  const query = Object.fromEntries(FILTERS.map((f) => [f, day(filters[f])])) as Record<Filter, string | undefined>;
  const list = useQuery({
    queryKey: ['admin', 'audit', query, page],
    queryFn: () => adminApi.audit({ ...query, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const go = (next: Record<Filter, string>, nextPage: number) => {
    const search = new URLSearchParams();
    for (const f of FILTERS) if (next[f].trim()) search.set(f, next[f].trim());
    if (nextPage > 1) search.set('page', String(nextPage));
    setParams(search);
  };
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go(draft, 1);
  };
  const clear = () => {
    const empty = Object.fromEntries(FILTERS.map((f) => [f, ''])) as Record<Filter, string>;
    setDraft(empty);
    go(empty, 1);
  };
  const exportCsv = useMutation({
    mutationFn: async () => {
      const res = await adminApi.auditCsv(query);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = 'audit.csv';
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
    onError: notifyError,
  });
  const time = new Intl.DateTimeFormat(ui, { dateStyle: 'short', timeStyle: 'medium' });
  const field = (f: Filter, label: string, extra: { type?: string; placeholder?: string } = {}) => (
    <TextInput
      label={label}
      value={draft[f]}
      onChange={(e) => setDraft({ ...draft, [f]: e.currentTarget.value })}
      data-testid={`audit-filter-${f}`}
      style={{ flex: '1 1 10rem' }}
      {...extra}
    />
  );

  return (
    <>
      <PageHeader
        title={t('audit.title')}
        description={t('audit.description')}
        actions={
          <Button
            variant="default"
            leftSection={<IconDownload size={16} />}
            loading={exportCsv.isPending}
            onClick={() => exportCsv.mutate()}
            data-testid="audit-export"
          >
            {t('audit.export')}
          </Button>
        }
      />
      <Stack>
        <Paper withBorder p="md" radius="md">
          <form onSubmit={apply}>
            <Group align="flex-end" wrap="wrap">
              {field('operator', t('audit.operator'))}
              {field('action', t('audit.action'), { placeholder: t('audit.actionHint') })}
              {field('target_type', t('audit.targetType'))}
              {field('target_id', t('audit.targetId'))}
              {field('since', t('audit.from'), { type: 'date' })}
              {field('until', t('audit.to'), { type: 'date' })}
              <Group gap="xs">
                <Button type="submit" data-testid="audit-apply">
                  {t('audit.apply')}
                </Button>
                <Button variant="subtle" onClick={clear}>
                  {t('audit.clear')}
                </Button>
              </Group>
            </Group>
          </form>
        </Paper>
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="audit" />
        ) : (
          <DataTable<AuditEntryView>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={200}
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            totalRecords={list.data?.total ?? 0}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={(p) => go(filters, p)}
            paginationText={({ from, to, totalRecords }) => t('audit.records', { from, to, total: totalRecords })}
            noRecordsText={t('audit.empty')}
            data-testid="audit-table"
            // A table of text only: its scrolling area takes the focus itself, so a keyboard can scroll it.
            scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': t('audit.title') } }}
            columns={[
              { accessor: 'at', title: t('audit.columns.at'), render: (e) => time.format(new Date(e.at)), noWrap: true },
              {
                accessor: 'operator_id',
                title: t('audit.columns.operator'),
                render: (e) => (
                  <Stack gap={0}>
                    <Text size="sm">{e.operator_id}</Text>
                    <Text size="xs" c="dimmed">
                      {e.operator_role}
                    </Text>
                  </Stack>
                ),
              },
              {
                accessor: 'action',
                title: t('audit.columns.action'),
                render: (e) => <Code data-testid="audit-row-action">{e.action}</Code>,
              },
              { accessor: 'target_id', title: t('audit.columns.target'), render: (e) => `${e.target_type} ${e.target_id}` },
              {
                accessor: 'after',
                title: t('audit.columns.change'),
                render: (e) => (
                  <Text size="xs" style={{ wordBreak: 'break-word' }}>
                    {short(e.before)} → {short(e.after)}
                  </Text>
                ),
              },
              { accessor: 'reason', title: t('audit.columns.reason'), render: (e) => e.reason ?? '—' },
              {
                accessor: 'request_id',
                title: t('audit.columns.request'),
                render: (e) => (
                  <Stack gap={0}>
                    <Text size="xs">{e.request_id}</Text>
                    <Text size="xs" c="dimmed">
                      {e.ip}
                    </Text>
                  </Stack>
                ),
              },
            ]}
          />
        )}
      </Stack>
    </>
  );
}
