// NumberInput's styles come with this page's chunk: the customer's first page does not carry them.
import '@mantine/core/styles/NumberInput.css';
import { useState, type FormEvent } from 'react';
import {
  Badge,
  Button,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { PLANS, type CatalogProduct } from '@polyvox/contracts';
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
  const [creating, setCreating] = useState(false);
  const [retiring, setRetiring] = useState<CatalogProduct | null>(null);
  return (
    <>
      <PageHeader
        title={t('catalog.title')}
        description={t('catalog.description')}
        actions={
          <Button onClick={() => setCreating(true)} data-testid="catalog-create">
            {t('catalog.create')}
          </Button>
        }
      />
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
                  <Group gap={4} wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => setEditing(p)} data-testid={`catalog-edit-${p.id}`}>
                      {t('catalog.edit')}
                    </Button>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => setRetiring(p)}
                      data-testid={`catalog-retire-${p.id}`}
                    >
                      {t('catalog.retire')}
                    </Button>
                  </Group>
                ),
              },
            ]}
          />
        )}
      </Stack>
      {editing && <EditProduct key={editing.id} product={editing} onClose={() => setEditing(null)} />}
      {creating && <CreateProduct onClose={() => setCreating(false)} />}
      {retiring && <RetireProduct key={retiring.id} product={retiring} onClose={() => setRetiring(null)} />}
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

const refreshCatalogue = () => {
  void queryClient.invalidateQueries({ queryKey: KEY });
  void queryClient.invalidateQueries({ queryKey: ['economy'] });
};

/** A new credit pack or plan: its id (never reused), names in the three languages, prices and credits; a plan its period. */
function CreateProduct({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('admin');
  const { t: tc } = useTranslation();
  const { ui } = useLocaleChoice();
  const [kind, setKind] = useState<'credits' | 'plan'>('credits');
  const [id, setId] = useState('');
  const [names, setNames] = useState({ en: '', 'zh-CN': '', 'zh-TW': '' });
  const [cny, setCny] = useState<number | string>('');
  const [usd, setUsd] = useState<number | string>('');
  const [credits, setCredits] = useState<number | string>('');
  const [plan, setPlan] = useState<string | null>('monthly');
  const [level, setLevel] = useState('');
  const [period, setPeriod] = useState<number | string>(30);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: catalogApi.createProduct,
    meta: { silent: true },
    onSuccess: () => {
      notifyInfo(t('catalog.created'));
      refreshCatalogue();
      onClose();
    },
    onError: (e) => setProblem(describeError(e, ui, tc('errors.network'))),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    create.mutate({
      id: id.trim(),
      kind,
      credits: Number(credits),
      prices: { CNY: Math.round(Number(cny) * 100), USD: Math.round(Number(usd) * 100) },
      name: names,
      description: names,
      ...(kind === 'plan'
        ? { plan: (plan ?? 'monthly') as (typeof PLANS)[number], vip_level: level.trim(), period_days: Number(period) }
        : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
  };
  return (
    <Modal opened onClose={onClose} title={t('catalog.createTitle')} size="lg">
      <form onSubmit={submit} data-testid="catalog-create-form">
        <Stack>
          <SegmentedControl
            value={kind}
            onChange={(v) => setKind(v as 'credits' | 'plan')}
            data={[
              { value: 'credits', label: t('catalog.kinds.credits') },
              { value: 'plan', label: t('catalog.kinds.plan') },
            ]}
            w="fit-content"
            data-testid="catalog-create-kind"
          />
          <TextInput
            label={t('catalog.id')}
            description={t('catalog.idHint')}
            value={id}
            onChange={(e) => setId(e.currentTarget.value)}
            required
            data-testid="catalog-create-id"
          />
          {LOCALES.map((l) => (
            <TextInput
              key={l}
              label={`${t('catalog.names')} (${l})`}
              value={names[l]}
              onChange={(e) => setNames({ ...names, [l]: e.currentTarget.value })}
              required
              data-testid={`catalog-create-name-${l}`}
            />
          ))}
          <Group grow wrap="wrap">
            <NumberInput
              label={t('catalog.priceCny')}
              min={0}
              decimalScale={2}
              value={cny}
              onChange={setCny}
              data-testid="catalog-create-cny"
            />
            <NumberInput
              label={t('catalog.priceUsd')}
              min={0}
              decimalScale={2}
              value={usd}
              onChange={setUsd}
              data-testid="catalog-create-usd"
            />
            <NumberInput
              label={t('catalog.credits')}
              min={0}
              value={credits}
              onChange={setCredits}
              data-testid="catalog-create-credits"
            />
          </Group>
          {kind === 'plan' && (
            <Group grow wrap="wrap">
              <Select
                label={t('catalog.planPeriod')}
                data={PLANS.filter((p) => p !== 'free')}
                value={plan}
                onChange={setPlan}
                allowDeselect={false}
              />
              <TextInput label={t('catalog.level')} value={level} onChange={(e) => setLevel(e.currentTarget.value)} />
              <NumberInput label={t('catalog.period')} min={1} value={period} onChange={setPeriod} />
            </Group>
          )}
          <TextInput label={t('catalog.reason')} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          {problem && (
            <Text c="red" size="sm" role="alert" data-testid="catalog-create-error">
              {problem}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('catalog.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending} data-testid="catalog-create-save">
              {t('catalog.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Retires a product after a confirmation: no longer listed or sold; orders keep it as bought. */
function RetireProduct({ product, onClose }: { product: CatalogProduct; onClose: () => void }) {
  const { t } = useTranslation('admin');
  const { t: tc } = useTranslation();
  const { ui } = useLocaleChoice();
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const retire = useMutation({
    mutationFn: () => catalogApi.retireProduct(product.id, reason.trim()),
    meta: { silent: true },
    onSuccess: () => {
      notifyInfo(t('catalog.retired'));
      refreshCatalogue();
      onClose();
    },
    onError: (e) => setProblem(describeError(e, ui, tc('errors.network'))),
  });
  return (
    <Modal opened onClose={onClose} title={t('catalog.retireTitle', { name: product.name[ui] })}>
      <Stack>
        <Text size="sm">{t('catalog.retireBody')}</Text>
        <TextInput label={t('catalog.reason')} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
        {problem && (
          <Text c="red" size="sm" role="alert" data-testid="catalog-retire-error">
            {problem}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('catalog.cancel')}
          </Button>
          <Button color="red" loading={retire.isPending} onClick={() => retire.mutate()} data-testid="catalog-retire-confirm">
            {t('catalog.retire')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
