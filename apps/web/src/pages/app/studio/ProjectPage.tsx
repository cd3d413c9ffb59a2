import { useState } from 'react';
import { Anchor, Button, Drawer, Grid, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowLeft, IconListDetails } from '@tabler/icons-react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../../api/errors';
import { EmptyState } from '../../../components/EmptyState';
import { LoadError } from '../../../components/LoadError';
import { PageHeader } from '../../../components/PageHeader';
import { BlobPlayer } from './BlobPlayer';
import { ChapterList } from './ChapterList';
import { ChapterView } from './ChapterView';
import { ConvertPanel } from './ConvertPanel';
import { isConverting, useConvertEstimate, useProject, useRefreshAfterConversion } from './queries';
import { SnapshotsPanel } from './SnapshotsPanel';
import { SpeakersPanel } from './SpeakersPanel';
import { useParagraphAudio } from './useParagraphAudio';

/**
 * One project: its chapters (a side list, a drawer on a phone), the chosen chapter's paragraphs to read, edit and play,
 * the speakers' voices, the price and the conversion with each chapter's progress, and the snapshots to download.
 * The chapter shown is the route's `?chapter=`.
 */
export function ProjectPage() {
  const { t } = useTranslation();
  const id = useParams().projectId ?? '';
  const [params, setParams] = useSearchParams();
  const wide = useMediaQuery('(min-width: 62em)');
  const [drawer, setDrawer] = useState(false);
  const project = useProject(id);
  const data = project.data;
  const converting = isConverting(data);
  useRefreshAfterConversion(converting);
  const chapterId =
    data?.chapters.find((c) => c.chapter_id === params.get('chapter'))?.chapter_id ?? data?.chapters[0]?.chapter_id;
  // The price asked again whenever the project changes; its 404 says the conversion routes are not on this server yet.
  const estimate = useConvertEstimate(id, undefined, data?.updated_at);
  const [structureMissing, setStructureMissing] = useState(false);
  const structure = estimate.available !== false && !structureMissing;
  const paragraphAudio = useParagraphAudio(id);
  // Playing a paragraph needs the conversion branch's routes too: disabled from the start when they are not there.
  const audio = { ...paragraphAudio, available: paragraphAudio.available && estimate.available !== false };

  const select = (next: string) => {
    params.set('chapter', next);
    setParams(params, { replace: true });
    setDrawer(false);
  };

  if (project.isLoading) return <Skeleton h={240} />;
  if (!data) {
    const gone = isApiError(project.error) && project.error.status === 404;
    return (
      <Stack data-testid="project-page">
        <PageHeader title={t('studio.title')} />
        {gone ? (
          <EmptyState title={t('studio.notFound')} body="" action={<BackLink />} />
        ) : (
          <LoadError error={project.error} onRetry={() => void project.refetch()} what="project" />
        )}
      </Stack>
    );
  }

  const chapters = (
    <ChapterList
      project={data}
      selected={chapterId}
      onSelect={select}
      structure={structure}
      onMissing={() => setStructureMissing(true)}
    />
  );
  // Beside the chapters on a desktop; under the paragraphs on a phone.
  const panels = (
    <>
      <SpeakersPanel project={data} />
      <ConvertPanel project={data} chapterId={chapterId} estimate={estimate} converting={converting} />
      <SnapshotsPanel project={data} converting={converting} />
    </>
  );
  return (
    <Stack data-testid="project-page" data-id={data.project_id} data-state={data.state} data-converting={converting}>
      <BackLink />
      <PageHeader
        title={data.name}
        actions={
          !wide && (
            <Button
              variant="light"
              leftSection={<IconListDetails size={16} />}
              onClick={() => setDrawer(true)}
              data-testid="chapters-open"
            >
              {t('studio.showChapters')}
            </Button>
          )
        }
      />
      <Grid gutter="lg">
        {wide && (
          <Grid.Col span={4}>
            <Stack>
              {chapters}
              {panels}
            </Stack>
          </Grid.Col>
        )}
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            <Paper
              withBorder
              radius="md"
              p="md"
              data-testid="paragraph-player"
              data-paragraph-id={audio.playing?.paragraphId ?? ''}
              style={{ position: 'sticky', top: 'calc(var(--app-shell-header-height, 60px) + 8px)', zIndex: 3 }}
            >
              {audio.playing ? (
                <Stack gap={6}>
                  <Text size="sm" fw={500} truncate>
                    {t('studio.nowPlaying', { n: audio.playing.n, speaker: audio.playing.speaker })}
                  </Text>
                  <BlobPlayer blob={audio.playing.blob} />
                </Stack>
              ) : (
                <Text size="sm" c="dimmed" data-testid={audio.available ? 'player-empty' : 'player-later'}>
                  {audio.available ? t('studio.playerEmpty') : t('studio.playLater')}
                </Text>
              )}
            </Paper>
            {chapterId && (
              <ChapterView
                key={chapterId}
                project={data}
                chapterId={chapterId}
                converting={converting}
                audio={audio}
                structure={structure}
                onMissing={() => setStructureMissing(true)}
              />
            )}
            {!wide && panels}
          </Stack>
        </Grid.Col>
      </Grid>
      <Drawer opened={drawer && !wide} onClose={() => setDrawer(false)} title={t('studio.chaptersTitle')} size="xs">
        {chapters}
      </Drawer>
    </Stack>
  );
}

function BackLink() {
  const { t } = useTranslation();
  return (
    <Group>
      <Anchor component={Link} to="/app/studio" size="sm" data-testid="project-back">
        <Group gap={4} wrap="nowrap">
          <IconArrowLeft size={14} />
          {t('studio.back')}
        </Group>
      </Anchor>
    </Group>
  );
}
