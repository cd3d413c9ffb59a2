import { useState } from 'react';
import {
  ActionIcon,
  Badge,
  Button,
  Center,
  Checkbox,
  Collapse,
  Divider,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Tooltip,
} from '@mantine/core';
import { IconCheck, IconHistory, IconPlayerPlayFilled, IconX } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { LoadError } from '../../../components/LoadError';
import { EmptyState } from '../../../components/EmptyState';
import { listPreviews, PREVIEWS_KEY, type Preview, type PreviewType } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatDate, formatSeconds } from '../../../lib/format';
import { languageName } from '../../../speech/languages';
import { findModel, useTtsConfig } from '../../../speech/useTtsConfig';
import { PreviewCard } from './PreviewCard';
import { PreviewPlayer } from './PreviewPlayer';

interface Props {
  /** The page's kind: only its versions are listed. */
  type: PreviewType;
  onActivate?: (preview: Preview) => void;
}

export function usePreviews() {
  const config = useTtsConfig().data;
  const size = config?.limits.preview_versions ?? LIMITS.previewVersions;
  return useQuery({
    queryKey: [PREVIEWS_KEY, size],
    queryFn: ({ signal }) => listPreviews(1, size, signal),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
}

/** What produced a version, in a line: its prompt, its sample, or its mix. */
function origin(p: Preview, sampleLabel: (index: number) => string): string {
  if (p.type === 'prompt') return p.prompt ?? '';
  if (p.type === 'clone') return p.sample_index != null ? sampleLabel(p.sample_index) : '';
  return (p.mix ?? []).map((m) => `${m.voice_id} ${Math.round(m.weight * 100)}%`).join(' · ');
}

/**
 * The newest versions (up to the kept 50), newest first: play one with its waveform, tick two to
 * hear them side by side, and activate the one to keep.
 */
export function PreviewHistory({ type, onActivate }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  const list = usePreviews();
  const [open, setOpen] = useState<string | null>(null);
  const [compare, setCompare] = useState<string[]>([]);
  const max = config?.limits.preview_versions ?? LIMITS.previewVersions;

  const sampleLabel = (index: number) => t('design.sampleN', { index: String(index) });
  const items = (list.data?.items ?? []).filter((p) => p.type === type);
  const compared = compare.map((id) => items.find((p) => p.id === id)).filter((p): p is Preview => !!p);

  const toggleCompare = (id: string) =>
    setCompare((prev) => (prev.includes(id) ? prev.filter((x) => x !== id) : [...prev, id].slice(-2)));

  return (
    <Paper withBorder radius="md" p="lg" data-testid="preview-history" data-count={list.data ? items.length : ''}>
      <Group justify="space-between" mb="sm">
        <Group gap={6}>
          <IconHistory size={18} />
          <Text fw={600}>{t('design.historyTitle')}</Text>
        </Group>
        <Text size="xs" c="dimmed">
          {t('design.historyHint', { max: String(max) })}
        </Text>
      </Group>
      {compared.length === 2 && (
        <Paper bg="var(--mantine-color-gray-0)" p="sm" radius="md" mb="md" data-testid="compare-panel">
          <Group justify="space-between" mb="xs">
            <Text size="sm" fw={500}>
              {t('design.compareTitle')}
            </Text>
            <ActionIcon variant="subtle" color="gray" onClick={() => setCompare([])} aria-label={t('design.compareClose')}>
              <IconX size={16} />
            </ActionIcon>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {compared.map((p, i) => (
              <PreviewCard
                key={p.id}
                preview={p}
                model={p.model}
                label={i === 0 ? 'A' : 'B'}
                testId="compare-card"
                action={
                  onActivate && !p.voice_id ? (
                    <Button size="xs" variant="light" onClick={() => onActivate(p)} data-testid="compare-activate">
                      {t('design.activate')}
                    </Button>
                  ) : undefined
                }
              />
            ))}
          </SimpleGrid>
        </Paper>
      )}
      {list.isError && !list.data ? (
        <LoadError
          error={list.error}
          onRetry={() => void list.refetch()}
          retrying={list.isFetching}
          bordered={false}
          what="previews"
        />
      ) : !list.data ? (
        <Center py="lg">
          <Loader size="sm" />
        </Center>
      ) : items.length === 0 ? (
        <EmptyState bordered={false} title={t('design.historyEmptyTitle')} body={t('design.historyEmptyBody')} />
      ) : (
        <Stack gap={0}>
          {compare.length === 1 && (
            <Text size="xs" c="dimmed" mb="xs">
              {t('design.compareHint')}
            </Text>
          )}
          {items.map((p, i) => (
            <div key={p.id}>
              {i > 0 && <Divider />}
              <Group
                wrap="nowrap"
                gap="sm"
                py="xs"
                data-testid="history-row"
                data-preview-id={p.id}
                data-version={p.version}
                data-model={p.model}
              >
                <Tooltip label={t('design.play')}>
                  <ActionIcon
                    variant={open === p.id ? 'filled' : 'light'}
                    radius="xl"
                    onClick={() => setOpen(open === p.id ? null : p.id)}
                    aria-label={t('design.play')}
                    data-testid="history-play"
                  >
                    <IconPlayerPlayFilled size={14} />
                  </ActionIcon>
                </Tooltip>
                <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                  {/* On a phone the details wrap to the next line; "Version 1" itself never breaks. */}
                  <Group gap={6} wrap="wrap">
                    <Text fw={600} size="sm" style={{ whiteSpace: 'nowrap', flexShrink: 0 }} data-testid="history-version">
                      {t('design.version', { version: String(p.version) })}
                    </Text>
                    <Badge size="xs" variant="outline" color="gray" style={{ flexShrink: 0 }}>
                      {findModel(config, p.model)?.model_name ?? p.model}
                    </Badge>
                    <Text size="xs" c="dimmed" truncate style={{ minWidth: 0 }}>
                      {languageName(p.language, ui)} · {t('design.seconds', { seconds: formatSeconds(p.duration, ui) })} ·{' '}
                      {formatDate(p.created_at, ui)}
                    </Text>
                    {p.voice_id && (
                      <Badge size="xs" color="teal.9" leftSection={<IconCheck size={10} />} data-testid="history-activated">
                        {t('design.activatedBadge')}
                      </Badge>
                    )}
                  </Group>
                  <Text size="xs" c="dimmed" truncate title={origin(p, sampleLabel)}>
                    {origin(p, sampleLabel)}
                  </Text>
                  <Text size="xs" truncate title={p.preview_text}>
                    “{p.preview_text}”
                  </Text>
                </Stack>
                <Checkbox
                  size="xs"
                  label={t('design.compare')}
                  checked={compare.includes(p.id)}
                  onChange={() => toggleCompare(p.id)}
                  data-testid="history-compare"
                />
                {onActivate && !p.voice_id && (
                  <Button size="xs" variant="light" onClick={() => onActivate(p)} data-testid="history-activate">
                    {t('design.activate')}
                  </Button>
                )}
              </Group>
              <Collapse in={open === p.id}>
                {open === p.id && (
                  <div style={{ paddingBottom: 8 }}>
                    <PreviewPlayer url={p.audio_url} previewId={p.id} autoplay testId="history-player" />
                  </div>
                )}
              </Collapse>
            </div>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
