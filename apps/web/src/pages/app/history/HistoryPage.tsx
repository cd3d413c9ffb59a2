import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/EmptyState';
import { LoadError } from '../../../components/LoadError';
import { PageHeader } from '../../../components/PageHeader';
import { notifySuccess } from '../../../lib/notify';
import { deleteHistory, listHistory, type HistoryItem } from '../../../speech/history';
import { HistoryItemCard } from './HistoryItemCard';

const HISTORY_KEY = 'history';

/** Every generation of the account, newest first, searchable, each playable, downloadable and deletable. */
export function HistoryPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const [term] = useDebouncedValue(search, 300);
  const [deleting, setDeleting] = useState<HistoryItem | null>(null);
  const list = useInfiniteQuery({
    queryKey: [HISTORY_KEY, term.trim()],
    queryFn: ({ pageParam, signal }) => listHistory(term, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more ? (last.last_history_item_id ?? undefined) : undefined),
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteHistory(id),
    onSuccess: () => {
      notifySuccess(t('history.deleted'));
      setDeleting(null);
      void client.invalidateQueries({ queryKey: [HISTORY_KEY] });
    },
  });
  const items = list.data?.pages.flatMap((p) => p.history) ?? [];

  return (
    <Stack data-testid="history-page">
      <PageHeader title={t('history.title')} description={t('history.description')} />
      <TextInput
        label={t('history.search')}
        placeholder={t('history.searchPlaceholder')}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(e) => setSearch(e.currentTarget.value)}
        maxLength={200}
        data-testid="history-search"
      />
      {list.isError && <LoadError error={list.error} onRetry={() => void list.refetch()} what="history" />}
      {list.isSuccess && items.length === 0 && (
        <EmptyState
          title={term.trim() ? t('history.noMatchTitle') : t('history.emptyTitle')}
          body={term.trim() ? t('history.noMatchBody') : t('history.emptyBody')}
        />
      )}
      <Stack gap="sm" data-testid="history-list">
        {items.map((item) => (
          <HistoryItemCard key={item.history_item_id} item={item} onDelete={() => setDeleting(item)} />
        ))}
      </Stack>
      {list.hasNextPage && (
        <Group justify="center">
          <Button variant="default" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            {t('history.more')}
          </Button>
        </Group>
      )}
      {deleting && (
        <Modal
          opened
          onClose={() => setDeleting(null)}
          title={t('history.deleteTitle')}
          centered
          data-testid="history-delete-dialog"
        >
          <Stack gap="md">
            <Text>{t('history.deleteBody')}</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDeleting(null)}>
                {t('history.cancel')}
              </Button>
              <Button
                color="red"
                loading={remove.isPending}
                onClick={() => remove.mutate(deleting.history_item_id)}
                data-testid="history-delete-confirm"
              >
                {t('history.delete')}
              </Button>
            </Group>
          </Stack>
        </Modal>
      )}
    </Stack>
  );
}
