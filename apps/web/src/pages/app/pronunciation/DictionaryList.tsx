import { Badge, Group, Paper, Skeleton, Stack, Switch, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/EmptyState';
import { LoadError } from '../../../components/LoadError';
import type { Dictionary } from '../../../speech/pronunciation';
import { useDictionaries } from './queries';

interface Props {
  selected: string | null;
  onSelect: (id: string) => void;
  showArchived: boolean;
  onShowArchived: (v: boolean) => void;
}

function DictionaryBadges({ d }: { d: Dictionary }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="wrap">
      {d.default && (
        <Badge color="teal" variant="light" title={t('pronunciation.defaultHint')} data-testid="dictionary-default-badge">
          {t('pronunciation.default')}
        </Badge>
      )}
      {d.shared && (
        <Badge color="gray" variant="light">
          {t('pronunciation.shared')}
        </Badge>
      )}
      {d.archived_time_unix !== null && (
        <Badge color="orange" variant="light" data-testid="dictionary-archived-badge">
          {t('pronunciation.archived')}
        </Badge>
      )}
    </Group>
  );
}

/** The account's dictionaries (and the operator's shared ones): name, rules, default and archived marks. */
export function DictionaryList({ selected, onSelect, showArchived, onShowArchived }: Props) {
  const { t } = useTranslation();
  const list = useDictionaries(showArchived);
  const items = list.data?.pronunciation_dictionaries ?? [];
  return (
    <Paper withBorder radius="md" p="md" data-testid="dictionary-list" data-count={list.data ? items.length : ''}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Text fw={500}>{t('pronunciation.listTitle')}</Text>
        <Switch
          size="xs"
          label={t('pronunciation.showArchived')}
          checked={showArchived}
          onChange={(e) => onShowArchived(e.currentTarget.checked)}
          data-testid="dictionary-show-archived"
        />
      </Group>
      {list.isPending ? (
        <Skeleton h={120} />
      ) : list.isError && !list.data ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} retrying={list.isFetching} what="dictionaries" />
      ) : items.length === 0 ? (
        <EmptyState bordered={false} title={t('pronunciation.emptyTitle')} body={t('pronunciation.emptyBody')} />
      ) : (
        <Stack gap={4}>
          {items.map((d) => (
            <UnstyledButton
              key={d.id}
              onClick={() => onSelect(d.id)}
              p="xs"
              style={{
                borderRadius: 'var(--mantine-radius-sm)',
                background: d.id === selected ? 'var(--mantine-primary-color-light)' : undefined,
              }}
              aria-current={d.id === selected ? 'true' : undefined}
              data-testid="dictionary-row"
              data-id={d.id}
              data-name={d.name}
              data-default={d.default}
            >
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Stack gap={0} style={{ minWidth: 0 }}>
                  <Text fw={600} truncate>
                    {d.name}
                  </Text>
                  <Text size="xs" c="dimmed" data-testid="dictionary-rules-num">
                    {t('pronunciation.rulesCount', { count: d.latest_version_rules_num })}
                  </Text>
                </Stack>
                <DictionaryBadges d={d} />
              </Group>
            </UnstyledButton>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
