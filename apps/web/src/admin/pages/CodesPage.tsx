// NumberInput's styles come with this page's chunk: the customer's first page does not carry them.
import '@mantine/core/styles/NumberInput.css';
import { useState, type FormEvent } from 'react';
import {
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconDownload, IconPlus } from '@tabler/icons-react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { CodeBatch } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { describeError } from '../../api/errors';
import { notifyError, notifyInfo } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { catalogApi, download, type BatchCode, type NewBatchBody } from '../catalog-api';

const PAGE_SIZE = 20;
const STATES = ['active', 'used_up', 'expired', 'revoked'] as const;
const CODE_STATES = ['unused', 'partly_used', 'used_up'] as const;
const STATE_COLOR = { active: 'teal', used_up: 'gray', expired: 'orange', revoked: 'red' } as const;
const KEY = ['admin', 'codes'] as const;

/**
 * Redemption code batches: filters, page and the open batch kept in the URL (#/admin/codes?state=active&batch=…),
 * paged on the server; a new batch shows its codes once (and the CSV gives them again); revoke asks for a reason.
 */
export default function CodesPage() {
  const { t } = useTranslation('admin');
  const { t: tc } = useTranslation();
  const { ui } = useLocaleChoice();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const state = params.get('state') ?? '';
  const kind = params.get('kind') ?? '';
  const open = params.get('batch');
  const codePage = Math.max(1, Number(params.get('cpage')) || 1);
  const codeState = params.get('cstate') ?? '';
  const set = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === '' || v === '1') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };
  const list = useQuery({
    queryKey: [...KEY, 'batches', state, kind, page],
    queryFn: () => catalogApi.batches({ state: state || undefined, kind: kind || undefined, page, page_size: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const batches = list.data?.items ?? [];
  const openBatch = batches.find((b) => b.id === open) ?? null;
  const codes = useQuery({
    queryKey: [...KEY, 'codes', open, codeState, codePage],
    queryFn: () => catalogApi.batchCodes(open!, { page: codePage, page_size: PAGE_SIZE, state: codeState || undefined }),
    enabled: open !== null,
    placeholderData: keepPreviousData,
  });
  const [creating, setCreating] = useState(false);
  const [made, setMade] = useState<{ batch: CodeBatch; codes: string[] } | null>(null);
  const [revoking, setRevoking] = useState<CodeBatch | null>(null);
  const time = new Intl.DateTimeFormat(ui, { dateStyle: 'medium' });
  const exportCsv = useMutation({
    mutationFn: async (b: CodeBatch) => download(await catalogApi.exportBatch(b.id), `codes-${b.prefix || b.id}.csv`),
    onError: notifyError,
  });
  const gives = (b: CodeBatch) =>
    b.kind === 'plan'
      ? t('codes.planGift', { plan: tc(`plans.${b.plan ?? 'monthly'}`) })
      : t('codes.creditsGift', { credits: formatNumber(b.credits, ui) });

  return (
    <>
      <PageHeader
        title={t('codes.title')}
        description={t('codes.description')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="codes-create">
            {t('codes.create')}
          </Button>
        }
      />
      <Stack>
        <Group wrap="wrap">
          <Select
            aria-label={t('codes.state')}
            data={[
              { value: '', label: t('codes.allStates') },
              ...STATES.map((s) => ({ value: s, label: t(`codes.states.${s}`) })),
            ]}
            value={state}
            onChange={(v) => set({ state: v ?? '', page: null })}
            allowDeselect={false}
            data-testid="codes-filter-state"
            w={180}
          />
          <SegmentedControl
            value={kind}
            onChange={(v) => set({ kind: v, page: null })}
            data={[
              { value: '', label: t('codes.allKinds') },
              { value: 'credits', label: t('codes.kinds.credits') },
              { value: 'plan', label: t('codes.kinds.plan') },
            ]}
          />
        </Group>
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="codes" />
        ) : (
          <DataTable<CodeBatch>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={160}
            fetching={list.isFetching}
            records={batches}
            totalRecords={list.data?.total ?? 0}
            recordsPerPage={PAGE_SIZE}
            page={page}
            onPageChange={(p) => set({ page: String(p) })}
            paginationText={({ from, to, totalRecords }) => t('codes.records', { from, to, total: totalRecords })}
            noRecordsText={t('codes.empty')}
            data-testid="codes-table"
            columns={[
              { accessor: 'name', title: t('codes.columns.name') },
              { accessor: 'kind', title: t('codes.columns.gives'), render: gives },
              { accessor: 'count', title: t('codes.columns.codes'), render: (b) => `${b.count} × ${b.uses_per_code}` },
              { accessor: 'used', title: t('codes.columns.used') },
              {
                accessor: 'state',
                title: t('codes.columns.state'),
                render: (b) => (
                  <Badge color={STATE_COLOR[b.state]} variant="light" data-testid="codes-row-state">
                    {t(`codes.states.${b.state}`)}
                  </Badge>
                ),
              },
              {
                accessor: 'expires_at',
                title: t('codes.columns.expires'),
                render: (b) => (b.expires_at ? time.format(new Date(b.expires_at)) : t('codes.never')),
              },
              { accessor: 'created_at', title: t('codes.columns.created'), render: (b) => time.format(new Date(b.created_at)) },
              {
                accessor: 'actions',
                title: t('codes.columns.actions'),
                render: (b) => (
                  <Group gap={4} wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => set({ batch: b.id, cpage: null, cstate: null })}>
                      {t('codes.view')}
                    </Button>
                    <Button
                      size="xs"
                      variant="default"
                      leftSection={<IconDownload size={14} />}
                      onClick={() => exportCsv.mutate(b)}
                      data-testid="codes-export"
                    >
                      {t('codes.export')}
                    </Button>
                    {b.state !== 'revoked' && (
                      <Button size="xs" color="red" variant="subtle" onClick={() => setRevoking(b)} data-testid="codes-revoke">
                        {t('codes.revoke')}
                      </Button>
                    )}
                  </Group>
                ),
              },
            ]}
          />
        )}
        {open && (
          <Paper withBorder p="md" radius="md" data-testid="batch-codes">
            <Group justify="space-between" mb="sm" wrap="wrap">
              <Title order={2} size="h4">
                {t('codes.batchCodes', { name: openBatch?.name ?? open })}
              </Title>
              <Select
                aria-label={t('codes.state')}
                data={[
                  { value: '', label: t('codes.allStates') },
                  ...CODE_STATES.map((s) => ({ value: s, label: t(`codes.codeStates.${s}`) })),
                ]}
                value={codeState}
                onChange={(v) => set({ cstate: v ?? '', cpage: null })}
                allowDeselect={false}
                w={180}
              />
            </Group>
            <DataTable<BatchCode>
              withTableBorder
              borderRadius="md"
              minHeight={120}
              fetching={codes.isFetching}
              records={codes.data?.items ?? []}
              totalRecords={codes.data?.total ?? 0}
              recordsPerPage={PAGE_SIZE}
              page={codePage}
              onPageChange={(p) => set({ cpage: String(p) })}
              paginationText={({ from, to, totalRecords }) => t('codes.records', { from, to, total: totalRecords })}
              noRecordsText={t('codes.noCodes')}
              columns={[
                { accessor: 'code', title: t('codes.columns.code'), render: (c) => <Text ff="monospace">{c.code}</Text> },
                { accessor: 'uses', title: t('codes.columns.uses'), render: (c) => `${c.uses} / ${c.max_uses}` },
                { accessor: 'state', title: t('codes.columns.state'), render: (c) => t(`codes.codeStates.${c.state}`) },
                {
                  accessor: 'redemptions',
                  title: t('codes.columns.by'),
                  render: (c) => (
                    <Stack gap={0} data-testid="code-used-by">
                      {c.redemptions.map((r) => (
                        <Text size="xs" key={r.account_id}>
                          {r.email ?? r.account_id} · {time.format(new Date(r.at))}
                        </Text>
                      ))}
                    </Stack>
                  ),
                },
              ]}
            />
          </Paper>
        )}
      </Stack>
      {creating && (
        <NewBatch
          onClose={() => setCreating(false)}
          onMade={(result) => {
            setCreating(false);
            setMade(result);
            void queryClient.invalidateQueries({ queryKey: KEY });
          }}
        />
      )}
      {made && (
        <Modal opened onClose={() => setMade(null)} title={t('codes.made', { count: made.codes.length })} size="lg">
          <Stack>
            <Text size="sm">{t('codes.madeBody')}</Text>
            <Textarea
              readOnly
              autosize
              minRows={4}
              maxRows={14}
              value={made.codes.join('\n')}
              ff="monospace"
              data-testid="codes-made"
            />
            <Group justify="flex-end">
              <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => exportCsv.mutate(made.batch)}>
                {t('codes.download')}
              </Button>
              <Button onClick={() => setMade(null)}>{t('codes.close')}</Button>
            </Group>
          </Stack>
        </Modal>
      )}
      {revoking && <Revoke batch={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}

function NewBatch({ onClose, onMade }: { onClose: () => void; onMade: (r: { batch: CodeBatch; codes: string[] }) => void }) {
  const { t } = useTranslation('admin');
  const { t: tc } = useTranslation();
  const { ui } = useLocaleChoice();
  const [form, setForm] = useState({
    name: '',
    kind: 'credits' as 'credits' | 'plan',
    credits: 10000 as number | string,
    product: '',
    count: 10 as number | string,
    uses: 1 as number | string,
    prefix: '',
    expires: '',
    reason: '',
  });
  const [problem, setProblem] = useState<string | null>(null);
  const plans = useQuery({ queryKey: ['admin', 'catalog', 'plan'], queryFn: () => catalogApi.products('plan') });
  const create = useMutation({
    mutationFn: (body: NewBatchBody) => catalogApi.createBatch(body),
    meta: { silent: true },
    onSuccess: onMade,
    onError: (e) => setProblem(describeError(e, ui, tc('errors.network'))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    create.mutate({
      name: form.name.trim(),
      kind: form.kind,
      ...(form.kind === 'credits' ? { credits: Number(form.credits) } : { product: form.product }),
      count: Number(form.count),
      uses_per_code: Number(form.uses),
      prefix: form.prefix.trim().toUpperCase(),
      expires_at: form.expires ? new Date(`${form.expires}T23:59:59`).toISOString() : null,
      reason: form.reason.trim(),
    });
  };
  const planOptions = (plans.data?.items ?? [])
    .filter((p) => p.kind === 'plan' && p.purchasable)
    .map((p) => ({ value: p.id, label: p.name[ui] }));
  return (
    <Modal opened onClose={onClose} title={t('codes.create')} size="lg">
      <form onSubmit={submit} data-testid="codes-form">
        <Stack>
          <TextInput
            label={t('codes.name')}
            required
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
            data-testid="codes-form-name"
          />
          <SegmentedControl
            value={form.kind}
            onChange={(v) => setForm({ ...form, kind: v === 'plan' ? 'plan' : 'credits' })}
            data={[
              { value: 'credits', label: t('codes.kinds.credits') },
              { value: 'plan', label: t('codes.kinds.plan') },
            ]}
          />
          {form.kind === 'credits' ? (
            <NumberInput
              label={t('codes.credits')}
              min={1}
              required
              value={form.credits}
              onChange={(v) => setForm({ ...form, credits: v })}
              data-testid="codes-form-credits"
            />
          ) : (
            <Select
              label={t('codes.plan')}
              required
              data={planOptions}
              value={form.product || null}
              onChange={(v) => setForm({ ...form, product: v ?? '' })}
            />
          )}
          <Group grow wrap="wrap">
            <NumberInput
              label={t('codes.count')}
              min={1}
              max={10000}
              required
              value={form.count}
              onChange={(v) => setForm({ ...form, count: v })}
              data-testid="codes-form-count"
            />
            <NumberInput
              label={t('codes.uses')}
              min={1}
              required
              value={form.uses}
              onChange={(v) => setForm({ ...form, uses: v })}
            />
          </Group>
          <Group grow wrap="wrap">
            <TextInput
              label={t('codes.prefix')}
              maxLength={12}
              value={form.prefix}
              onChange={(e) => setForm({ ...form, prefix: e.currentTarget.value })}
              data-testid="codes-form-prefix"
            />
            <TextInput
              label={t('codes.expires')}
              type="date"
              value={form.expires}
              onChange={(e) => setForm({ ...form, expires: e.currentTarget.value })}
            />
          </Group>
          <TextInput
            label={t('codes.reason')}
            required
            value={form.reason}
            onChange={(e) => setForm({ ...form, reason: e.currentTarget.value })}
            data-testid="codes-form-reason"
          />
          {problem && (
            <Text c="red" size="sm" role="alert">
              {problem}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('codes.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending} data-testid="codes-form-submit">
              {t('codes.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function Revoke({ batch, onClose }: { batch: CodeBatch; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const [reason, setReason] = useState('');
  const revoke = useMutation({
    mutationFn: () => catalogApi.revokeBatch(batch.id, reason.trim()),
    onSuccess: () => {
      notifyInfo(t('codes.revoked'));
      void queryClient.invalidateQueries({ queryKey: KEY });
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={t('codes.revokeTitle', { name: batch.name })}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          revoke.mutate();
        }}
      >
        <Stack>
          <Text size="sm">{t('codes.revokeBody')}</Text>
          <TextInput
            label={t('codes.reason')}
            required
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            data-testid="codes-revoke-reason"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('codes.cancel')}
            </Button>
            <Button
              type="submit"
              color="red"
              loading={revoke.isPending}
              disabled={!reason.trim()}
              data-testid="codes-revoke-confirm"
            >
              {t('codes.revoke')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
