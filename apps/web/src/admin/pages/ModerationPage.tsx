import { useState, type FormEvent } from 'react';
import { Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DataTable } from 'mantine-datatable';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useLocaleChoice } from '../../i18n/hooks';
import { moderationApi, type ModerationHitView, type ModerationTermView } from '../moderation-api';

const TERMS_KEY = ['admin', 'moderation', 'terms'] as const;
const HITS_KEY = ['admin', 'moderation', 'hits'] as const;
const PAGE = 50;
const SOURCES = ['words', 'operator', 'aliyun', 'openai'] as const;

/** Moderation: the operator's own list (add, remove; each change audited) and the texts refused, newest first. */
export default function ModerationPage() {
  const { t } = useTranslation('admin');
  const { ui } = useLocaleChoice();
  const queryClient = useQueryClient();
  const terms = useQuery({ queryKey: TERMS_KEY, queryFn: moderationApi.terms });
  const [term, setTerm] = useState('');
  const [category, setCategory] = useState('');
  const [account, setAccount] = useState('');
  const [filter, setFilter] = useState<string | undefined>(undefined);
  const hits = useInfiniteQuery({
    queryKey: [...HITS_KEY, filter ?? ''],
    queryFn: ({ pageParam }) => moderationApi.hits({ limit: PAGE, before: pageParam, account_id: filter }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
  const when = (iso: string) => new Intl.DateTimeFormat(ui, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));

  const add = useMutation({
    mutationFn: () => moderationApi.addTerm({ term: term.trim(), category: category.trim() || 'general' }),
    onSuccess: async () => {
      notifySuccess(t('moderation.added'));
      setTerm('');
      await queryClient.invalidateQueries({ queryKey: TERMS_KEY });
    },
    onError: notifyError,
  });
  const remove = useMutation({
    mutationFn: (id: string) => moderationApi.removeTerm(id),
    onSuccess: async () => {
      notifySuccess(t('moderation.removed'));
      await queryClient.invalidateQueries({ queryKey: TERMS_KEY });
    },
    onError: notifyError,
  });
  const onAdd = (e: FormEvent) => {
    e.preventDefault();
    if (term.trim()) add.mutate();
  };
  const sourceLabel = (s: string) =>
    (SOURCES as readonly string[]).includes(s) ? t(`moderation.sources.${s as (typeof SOURCES)[number]}`) : s;

  return (
    <>
      <PageHeader title={t('moderation.title')} description={t('moderation.description')} />
      <Stack data-testid="admin-moderation">
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h3" mb={4}>
            {t('moderation.listTitle')}
          </Title>
          <Text size="sm" c="dimmed" mb="sm">
            {t('moderation.listBody')}
          </Text>
          <form onSubmit={onAdd} aria-label={t('moderation.listTitle')}>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label={t('moderation.term')}
                required
                maxLength={200}
                value={term}
                onChange={(e) => setTerm(e.currentTarget.value)}
                data-testid="moderation-term"
                style={{ flex: '2 1 14rem' }}
              />
              <TextInput
                label={t('moderation.category')}
                placeholder="general"
                maxLength={40}
                value={category}
                onChange={(e) => setCategory(e.currentTarget.value)}
                data-testid="moderation-category"
                style={{ flex: '1 1 8rem' }}
              />
              <Button type="submit" loading={add.isPending} data-testid="moderation-add">
                {t('moderation.add')}
              </Button>
            </Group>
          </form>
        </Paper>
        {terms.isError ? (
          <LoadError error={terms.error} onRetry={() => void terms.refetch()} what="moderation-terms" />
        ) : (
          <DataTable<ModerationTermView>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={120}
            fetching={terms.isFetching}
            records={terms.data?.items ?? []}
            noRecordsText={t('moderation.emptyList')}
            data-testid="moderation-terms"
            columns={[
              { accessor: 'term', title: t('moderation.term') },
              { accessor: 'category', title: t('moderation.category') },
              { accessor: 'created_at', title: t('moderation.columns.at'), render: (r) => when(r.created_at) },
              {
                accessor: 'actions',
                title: '',
                textAlign: 'right',
                render: (r) => (
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    aria-label={`${t('moderation.remove')}: ${r.term}`}
                    loading={remove.isPending && remove.variables === r.id}
                    onClick={() => remove.mutate(r.id)}
                    data-testid={`moderation-remove-${r.id}`}
                  >
                    {t('moderation.remove')}
                  </Button>
                ),
              },
            ]}
          />
        )}
        <Title order={2} size="h3" mt="md">
          {t('moderation.hitsTitle')}
        </Title>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setFilter(account.trim() || undefined);
          }}
        >
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label={t('moderation.account')}
              value={account}
              onChange={(e) => setAccount(e.currentTarget.value)}
              maxLength={64}
              data-testid="moderation-account"
            />
            <Button type="submit" variant="default">
              {t('moderation.filter')}
            </Button>
          </Group>
        </form>
        {hits.isError ? (
          <LoadError error={hits.error} onRetry={() => void hits.refetch()} what="moderation-hits" />
        ) : (
          <DataTable<ModerationHitView>
            withTableBorder
            borderRadius="md"
            striped
            minHeight={160}
            fetching={hits.isFetching}
            records={hits.data?.pages.flatMap((p) => p.items) ?? []}
            noRecordsText={t('moderation.emptyHits')}
            data-testid="moderation-hits"
            columns={[
              { accessor: 'created_at', title: t('moderation.columns.at'), render: (h) => when(h.created_at) },
              { accessor: 'account_id', title: t('moderation.columns.account'), render: (h) => h.account_id ?? '—' },
              { accessor: 'route', title: t('moderation.columns.route') },
              { accessor: 'source', title: t('moderation.columns.source'), render: (h) => sourceLabel(h.source) },
              { accessor: 'category', title: t('moderation.columns.category') },
              {
                accessor: 'text',
                title: t('moderation.columns.text'),
                render: (h) => (
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} lineClamp={4}>
                    {h.text}
                  </Text>
                ),
              },
            ]}
          />
        )}
        {hits.hasNextPage && (
          <Group>
            <Button variant="default" loading={hits.isFetchingNextPage} onClick={() => void hits.fetchNextPage()}>
              {t('moderation.more')}
            </Button>
          </Group>
        )}
      </Stack>
    </>
  );
}
