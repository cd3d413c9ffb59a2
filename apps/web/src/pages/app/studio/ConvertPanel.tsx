import { useState } from 'react';
import { Alert, Button, Group, Loader, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { convertChapter, convertProject, type ProjectDetail } from '../../../studio/api';
import { chapterPercent } from '../../../studio/progress';
import { useConvertEstimate, useStudioChange } from './queries';
import { StateBadge } from './StateBadge';

interface Props {
  project: ProjectDetail;
  chapterId: string | undefined;
  /** The project's price; `available: false` when the conversion routes are not on this server yet. */
  estimate: ReturnType<typeof useConvertEstimate>;
  converting: boolean;
}

/** The price before converting, convert the project or regenerate the chapter shown, and each chapter's progress. */
export function ConvertPanel({ project, chapterId, estimate, converting }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const id = project.project_id;
  const [missing, setMissing] = useState(false);
  const chapterEstimate = useConvertEstimate(id, chapterId, project.updated_at);
  const available = estimate.available !== false && !missing;
  const all = useStudioChange(
    () => convertProject(id),
    () => setMissing(true),
  );
  const one = useStudioChange(
    (c: string) => convertChapter(id, c),
    () => setMissing(true),
  );
  const started = { onSuccess: () => notifySuccess(t('studio.convertStarted')) };
  const price = estimate.data;
  const failure = project.conversion_error;

  return (
    <Paper withBorder radius="md" p="md" data-testid="convert-panel" data-available={available}>
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Text fw={500} size="sm">
          {t('studio.convertTitle')}
        </Text>
        <StateBadge state={project.state} />
      </Group>
      <Stack gap="xs">
        {failure && !converting && (
          <Alert
            color="red"
            variant="light"
            p="xs"
            icon={<IconAlertTriangle size={16} />}
            title={t('studio.failedTitle')}
            data-testid="project-error"
            data-code={failure.code}
            data-failed={failure.paragraphs_failed}
          >
            <Stack gap={6}>
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {failure.message}
              </Text>
              {failure.paragraphs_failed > 0 && (
                <Text size="xs">{t('studio.failedParagraphs', { count: failure.paragraphs_failed })}</Text>
              )}
              <Group>
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  leftSection={<IconRefresh size={14} />}
                  onClick={() => all.mutate(undefined, started)}
                  loading={all.isPending}
                  disabled={!available}
                  data-testid="project-retry"
                >
                  {t('studio.retryProject')}
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}
        <div>
          <Text size="xs" c="dimmed">
            {t('studio.estimate')}
          </Text>
          <Group gap={6} mih={24}>
            {estimate.isFetching && !price && <Loader size={12} />}
            <Text
              fw={600}
              size="sm"
              data-testid="convert-estimate"
              data-credits={price?.credits ?? ''}
              data-characters={price?.characters ?? ''}
            >
              {price
                ? t('studio.estimateValue', {
                    credits: formatNumber(price.credits, ui),
                    characters: formatNumber(price.characters, ui),
                  })
                : available
                  ? '…'
                  : t('common.none')}
            </Text>
          </Group>
          {chapterEstimate.data && (
            <Text size="xs" c="dimmed" data-testid="convert-chapter-estimate" data-credits={chapterEstimate.data.credits}>
              {t('studio.chapterEstimate', { credits: formatNumber(chapterEstimate.data.credits, ui) })}
            </Text>
          )}
        </div>
        <Button
          leftSection={<IconPlayerPlay size={16} />}
          onClick={() => all.mutate(undefined, started)}
          loading={all.isPending}
          disabled={!available || converting}
          data-testid="convert-project"
        >
          {converting ? t('studio.converting') : t('studio.convertAll')}
        </Button>
        <Button
          variant="light"
          leftSection={<IconRefresh size={16} />}
          onClick={() => chapterId && one.mutate(chapterId, started)}
          loading={one.isPending}
          disabled={!available || converting || !chapterId}
          data-testid="convert-chapter"
        >
          {t('studio.convertChapter')}
        </Button>
        <Text size="xs" c="dimmed" data-testid={available ? 'convert-note' : 'convert-later'}>
          {available ? t('studio.unchangedSkipped') : t('studio.convertLater')}
        </Text>
        <Stack gap={6} data-testid="chapter-progress-list">
          {project.chapters.map((c) => {
            const percent = chapterPercent(c);
            return (
              <div
                key={c.chapter_id}
                data-testid="chapter-progress"
                data-chapter-id={c.chapter_id}
                data-percent={percent}
                data-state={c.state}
              >
                <Group justify="space-between" wrap="nowrap" gap="xs">
                  <Text size="xs" truncate>
                    {c.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {percent}%
                  </Text>
                </Group>
                <Progress value={percent} size="sm" animated={c.state === 'converting'} aria-label={c.name} />
              </div>
            );
          })}
        </Stack>
      </Stack>
    </Paper>
  );
}
