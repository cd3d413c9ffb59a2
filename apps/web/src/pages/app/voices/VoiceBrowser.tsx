import { useEffect, useRef, type ReactNode } from 'react';
import { Center, Group, Loader, Stack, Text, useMatches } from '@mantine/core';
import { IconMoodEmpty } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { QueryValue } from '../../../api/http';
import { Pager } from '../../../components/Pager';
import { EmptyState } from '../../../components/EmptyState';
import { LoadError } from '../../../components/LoadError';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import type { Voice } from '../../../speech/api';
import { useTtsConfig } from '../../../speech/useTtsConfig';
import { pageCount, VOICES_PAGE_SIZE, type VoiceFilters as Filters } from '../../../speech/voice-query';
import { useVoiceList } from './useVoiceList';
import { VoiceFilters } from './VoiceFilters';
import { VoiceList } from './VoiceList';

interface Props {
  filters: Filters;
  page: number;
  onChange: (filters: Filters, page: number) => void;
  action: (voice: Voice) => ReactNode;
  selectedId?: string | null;
  pageSize?: number;
  /** Fixed conditions added to the query (only mixable voices). */
  extraQuery?: Record<string, QueryValue>;
}

/** Filters, one page of voices, and the pager: the voices page and the playground's picker. */
export function VoiceBrowser({ filters, page, onChange, action, selectedId, pageSize = VOICES_PAGE_SIZE, extraQuery }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  const list = useVoiceList(filters, page, pageSize, extraQuery);
  const total = list.data?.total ?? 0;
  const pages = pageCount(total, pageSize);
  // A new page starts at its top (in the picker's dialog as on the voices page), not where the pager was pressed.
  const top = useRef<HTMLDivElement>(null);
  const shown = useRef(page);
  useEffect(() => {
    if (shown.current === page) return;
    shown.current = page;
    top.current?.scrollIntoView({ block: 'start' });
  }, [page]);
  // On a phone the pager keeps to one line: fewer neighbours, smaller buttons.
  const phone = useMatches({ base: true, sm: false });

  return (
    <Stack gap="md" ref={top} style={{ scrollMarginTop: 72 }}>
      <VoiceFilters value={filters} onChange={(next) => onChange(next, 1)} config={config} />
      <Group justify="space-between" mih={24}>
        <Text
          size="sm"
          c="dimmed"
          data-testid="voice-total"
          data-total={list.data ? total : undefined}
          data-fetching={list.isFetching}
        >
          {list.data ? t('voices.total', { total: formatNumber(total, ui) }) : ''}
        </Text>
        {list.isFetching && <Loader size="xs" />}
      </Group>
      {list.isError && !list.data ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} retrying={list.isFetching} what="voices" />
      ) : !list.data ? (
        <Center py="xl">
          <Loader />
        </Center>
      ) : list.data.items.length === 0 ? (
        <EmptyState icon={<IconMoodEmpty size={26} />} title={t('voices.emptyTitle')} body={t('voices.emptyBody')} />
      ) : (
        <VoiceList voices={list.data.items} config={config} action={action} selectedId={selectedId} />
      )}
      {pages > 1 && (
        <Group justify="center">
          <Pager
            total={pages}
            value={Math.min(page, pages)}
            onChange={(next) => onChange(filters, next)}
            siblings={phone ? 0 : 1}
            size={phone ? 'sm' : 'md'}
            gap={phone ? 4 : 8}
            data-testid="voice-pagination"
          />
        </Group>
      )}
    </Stack>
  );
}
