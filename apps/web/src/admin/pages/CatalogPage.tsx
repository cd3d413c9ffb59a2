// NumberInput's styles come with this page's chunk: the customer's first page does not carry them.
import '@mantine/core/styles/NumberInput.css';
import { useState, type FormEvent } from 'react';
import { Badge, Button, Group, Modal, NumberInput, SegmentedControl, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { CatalogProduct } from '@polyvox/contracts';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { describeError } from '../../api/errors';
import { notifyInfo } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { catalogApi, type ProductChange } from '../catalog-api';

const KEY = ['admin', 'catalog'] as const;
const major = (minor: number) => (minor / 100).toFixed(2);
const LOCALES = ['en', 'zh-CN', 'zh-TW'] as const;

/** Products and plans: the kind filter in the URL (#/admin/catalog?kind=plan); each row edited in a dialog. */
export default function CatalogPage() {
  const { t } = useTranslation('admin');
  const { ui } = useLocaleChoice();
  const [params, setParams] = useSearchParams();
  const kind = params.get('kind') ?? '';
  const list = useQuery({ queryKey: [...KEY, kind], queryFn: () => catalogApi.products(kind || undefined) });
  const [editing, setEditing] = useState<CatalogProduct | null>(null);
  return (
    <>
      <PageHeader title={t('catalog.title')} description={t('catalog.description')} />
      <Stack>
        <SegmentedControl
          value={kind}
          onChange={(v) => setParams(v ? { kind: v } : {}, { replace: true })}
          data={[
            { value: '', label: t('catalog.kinds.all') },
            { value: 'plan', label: t('catalog.kinds.plan') },
            { value: 'credits', label: t('catalog.kinds.credits') },
          ]}
          w="fit-content"
          data-testid="catalog-kind"
        />
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="catalog" />
        ) : (
          <DataTable<CatalogProduct>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={160}
            fetching={list.isFetching}
            records={list.data?.items ?? []}
            noRecordsText={t('catalog.empty')}
            data-testid="catalog-table"
            columns={[
              { accessor: 'name', title: t('catalog.columns.name'), render: (p) => p.name[ui] },
              { accessor: 'kind', title: t('catalog.columns.kind'), render: (p) => t(`catalog.kinds.${p.kind}`) },
              { accessor: 'cny', title: t('catalog.columns.cny'), render: (p) => `¥${major(p.prices.CNY)}`, noWrap: true },
              { accessor: 'usd', title: t('catalog.columns.usd'), render: (p) => `$${major(p.prices.USD)}`, noWrap: true },
              { accessor: 'credits', title: t('catalog.columns.credits'), render: (p) => formatNumber(p.credits, ui) },
              { accessor: 'period_days', title: t('catalog.columns.period'), render: (p) => p.period_days ?? '—' },
              {
                accessor: 'hidden',
                title: t('catalog.columns.shown'),
                render: (p) => (
                  <Badge variant="light" color={p.hidden ? 'gray' : 'teal'}>
                    {p.hidden ? t('catalog.no') : t('catalog.yes')}
                  </Badge>
                ),
              },
              {
                accessor: 'actions',
                title: t('catalog.columns.actions'),
                render: (p) => (
                  <Button size="xs" variant="light" onClick={() => setEditing(p)} data-testid={`catalog-edit-${p.id}`}>
                    {t('catalog.edit')}
                  </Button>
                ),
              },
            ]}
          />
        )}
      </Stack>
      {editing && <EditProduct key={editing.id} product={editing} onClose={() => setEditing(null)} />}
    </>
  );
}

function EditProduct({ product, onClose }: { product: CatalogProduct; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const { t: tc } = useTranslation();
  const { ui } = useLocaleChoice();
  const [cny, setCny] = useState<number | string>(Number(major(product.prices.CNY)));
  const [usd, setUsd] = useState<number | string>(Number(major(product.prices.USD)));
  const [credits, setCredits] = useState<number | string>(product.credits);
  const [period, setPeriod] = useState<number | string>(product.period_days ?? '');
  const [maxText, setMaxText] = useState<number | string>(product.privileges.max_text_length);
  const [ownVoices, setOwnVoices] = useState<number | string>(product.privileges.own_voices);
  const [api, setApi] = useState(product.privileges.api_access);
  const [hidden, setHidden] = useState(product.hidden);
  const [names, setNames] = useState(product.name);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const isPlan = product.kind === 'plan';
  const save = useMutation({
    mutationFn: (change: ProductChange) => catalogApi.updateProduct(product.id, change),
    meta: { silent: true },
    onSuccess: () => {
      notifyInfo(t('catalog.saved'));
      void queryClient.invalidateQueries({ queryKey: KEY });
      void queryClient.invalidateQueries({ queryKey: ['economy'] });
      onClose();
    },
    onError: (e) => setProblem(describeError(e, ui, tc('errors.network'))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    save.mutate({
      prices: { CNY: Math.round(Number(cny) * 100), USD: Math.round(Number(usd) * 100) },
      credits: Number(credits),
      ...(isPlan && product.plan !== 'free' && period !== '' ? { period_days: Number(period) } : {}),
      ...(isPlan ? { privileges: { max_text_length: Number(maxText), own_voices: Number(ownVoices), api_access: api } } : {}),
      name: names,
      hidden,
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
  };
  return (
    <Modal opened onClose={onClose} title={t('catalog.editTitle', { name: product.name[ui] })} size="lg">
      <form onSubmit={submit} data-testid="catalog-form">
        <Stack>
          <Group grow wrap="wrap">
            <NumberInput
              label={t('catalog.priceCny')}
              min={0}
              decimalScale={2}
              value={cny}
              onChange={setCny}
              data-testid="catalog-form-cny"
            />
            <NumberInput
              label={t('catalog.priceUsd')}
              min={0}
              decimalScale={2}
              value={usd}
              onChange={setUsd}
              data-testid="catalog-form-usd"
            />
          </Group>
          <Group grow wrap="wrap">
            <NumberInput label={t('catalog.credits')} min={0} value={credits} onChange={setCredits} />
            {isPlan && product.plan !== 'free' && (
              <NumberInput label={t('catalog.period')} min={1} value={period} onChange={setPeriod} />
            )}
          </Group>
          {isPlan && (
            <Group grow wrap="wrap" align="flex-end">
              <NumberInput label={t('catalog.maxText')} min={1} value={maxText} onChange={setMaxText} />
              <NumberInput label={t('catalog.ownVoices')} min={0} value={ownVoices} onChange={setOwnVoices} />
              <Switch label={t('catalog.apiAccess')} checked={api} onChange={(e) => setApi(e.currentTarget.checked)} />
            </Group>
          )}
          <Text fw={600} size="sm">
            {t('catalog.names')}
          </Text>
          {LOCALES.map((l) => (
            <TextInput key={l} label={l} value={names[l]} onChange={(e) => setNames({ ...names, [l]: e.currentTarget.value })} />
          ))}
          <Switch
            label={t('catalog.hidden')}
            checked={hidden}
            onChange={(e) => setHidden(e.currentTarget.checked)}
            data-testid="catalog-form-hidden"
          />
          <TextInput label={t('catalog.reason')} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          {problem && (
            <Text c="red" size="sm" role="alert" data-testid="catalog-form-error">
              {problem}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('catalog.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="catalog-form-save">
              {t('catalog.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
