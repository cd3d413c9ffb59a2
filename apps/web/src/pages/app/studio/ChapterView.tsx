import { Alert, Button, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LoadError } from '../../../components/LoadError';
import { addParagraph, convertChapter, moveParagraph, removeParagraph, type ProjectDetail } from '../../../studio/api';
import { ParagraphCard } from './ParagraphCard';
import { useChapter, useStudioChange } from './queries';
import type { useParagraphAudio } from './useParagraphAudio';

interface Props {
  project: ProjectDetail;
  chapterId: string;
  converting: boolean;
  audio: ReturnType<typeof useParagraphAudio>;
  structure: boolean;
  onMissing: () => void;
}

/** One chapter's paragraphs in order: read, edit, play, regenerate; add, remove and reorder them. */
export function ChapterView({ project, chapterId, converting, audio, structure, onMissing }: Props) {
  const { t } = useTranslation();
  const id = project.project_id;
  const chapter = useChapter(id, chapterId, converting);
  const add = useStudioChange(
    (a: { afterId: string }) => addParagraph(id, chapterId, t('studio.newParagraphText'), a.afterId),
    onMissing,
  );
  const remove = useStudioChange((paragraphId: string) => removeParagraph(id, paragraphId), onMissing);
  const move = useStudioChange((a: { paragraphId: string; to: number }) => moveParagraph(id, a.paragraphId, a.to), onMissing);
  const retry = useStudioChange(() => convertChapter(id, chapterId));

  if (chapter.isLoading) return <Skeleton h={200} />;
  if (!chapter.data)
    return (
      <LoadError error={chapter.error} onRetry={() => void chapter.refetch()} retrying={chapter.isFetching} what="chapter" />
    );
  const blocks = chapter.data.content.blocks;
  const failed = chapter.data.failed_paragraphs ?? [];
  return (
    <Stack gap="sm" data-testid="chapter-view" data-chapter-id={chapterId} data-count={blocks.length}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={2} size="h4" style={{ overflowWrap: 'anywhere' }} data-testid="chapter-title">
          {chapter.data.name}
        </Title>
        <Text size="sm" c="dimmed">
          {t('studio.paragraphs', { count: blocks.length })}
        </Text>
      </Group>
      {failed.length > 0 && (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={t('studio.chapterFailed', { count: failed.length })}
          data-testid="chapter-error"
          data-count={failed.length}
        >
          <Stack gap="xs">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {failed[0]!.message}
            </Text>
            <Group>
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconRefresh size={14} />}
                onClick={() => retry.mutate(undefined)}
                loading={retry.isPending}
                disabled={converting}
                data-testid="chapter-retry"
              >
                {t('studio.retryChapter')}
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
      {blocks.length === 0 && (
        <Paper withBorder radius="md" p="md">
          <Text size="sm" c="dimmed">
            {t('studio.paragraphs', { count: 0 })}
          </Text>
        </Paper>
      )}
      {blocks.map((block, i) => (
        <ParagraphCard
          key={block.block_id}
          project={project}
          paragraph={block}
          n={i + 1}
          first={i === 0}
          last={i === blocks.length - 1}
          audio={audio}
          structure={structure}
          onAddAfter={() => add.mutate({ afterId: block.block_id })}
          onRemove={() => remove.mutate(block.block_id)}
          onMove={(delta) => move.mutate({ paragraphId: block.block_id, to: i + delta })}
        />
      ))}
    </Stack>
  );
}
