import { useState } from 'react';
import { ActionIcon, Anchor, Badge, Button, Group, Modal, Paper, Progress, Skeleton, Stack, Text } from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { IconBooks, IconPlus, IconTrash } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/EmptyState';
import { LoadError } from '../../../components/LoadError';
import { PageHeader } from '../../../components/PageHeader';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatDate } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { deleteProject, fetchProject, type Project } from '../../../studio/api';
import { CreateProjectDialog } from './CreateProjectDialog';
import { STUDIO_KEY, useProjects, useStudioChange } from './queries';
import { StateBadge } from './StateBadge';

/** The account's Studio projects: each with its chapters and state; a new one from pasted text or a file; delete. */
export function StudioListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const list = useProjects();
  const projects = list.data ?? [];
  // The list has no chapter counts (ElevenLabs' shape): each project's own answer gives them, and the editor reuses it.
  const details = useQueries({
    queries: projects.map((p) => ({
      queryKey: [STUDIO_KEY, 'project', p.project_id],
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchProject(p.project_id, signal),
      retry: false,
      meta: { silent: true },
    })),
  });
  const remove = useStudioChange((p: Project) => deleteProject(p.project_id));

  const create = (testId: string) => (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid={testId}>
      {t('studio.create')}
    </Button>
  );
  return (
    <Stack data-testid="studio-page">
      <PageHeader title={t('studio.title')} description={t('studio.description')} actions={create('studio-create')} />
      {list.isLoading ? (
        <Skeleton h={120} />
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} retrying={list.isFetching} what="projects" />
      ) : projects.length === 0 ? (
        <EmptyState
          icon={<IconBooks size={26} />}
          title={t('studio.emptyTitle')}
          body={t('studio.emptyBody')}
          action={create('studio-create-empty')}
        />
      ) : (
        <Stack gap="sm" data-testid="project-list" data-count={projects.length}>
          {projects.map((p, i) => (
            <ProjectRow
              key={p.project_id}
              project={p}
              chapters={details[i]?.data?.chapters.length}
              onDelete={() => setDeleting(p)}
            />
          ))}
        </Stack>
      )}
      {creating && (
        <CreateProjectDialog
          onClose={() => setCreating(false)}
          onCreated={(p) => {
            setCreating(false);
            notifySuccess(t('studio.created', { name: p.name }));
            navigate(`/app/studio/${encodeURIComponent(p.project_id)}`);
          }}
        />
      )}
      <Modal opened={!!deleting} onClose={() => setDeleting(null)} title={t('studio.deleteTitle')} centered>
        <Stack>
          <Text size="sm">{t('studio.deleteBody', { name: deleting?.name ?? '' })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              {t('common.cancel')}
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              data-testid="project-delete-confirm"
              onClick={() => {
                const target = deleting!;
                remove.mutate(target, {
                  onSuccess: () => {
                    setDeleting(null);
                    notifySuccess(t('studio.deleted', { name: target.name }));
                  },
                });
              }}
            >
              {t('studio.deleteConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function ProjectRow({
  project: p,
  chapters,
  onDelete,
}: {
  project: Project;
  chapters: number | undefined;
  onDelete: () => void;
}) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const created = formatDate(new Date(p.create_date_unix * 1000).toISOString(), ui);
  const busy = p.state === 'converting' || p.state === 'in_queue';
  const percent = Math.round(Math.min(1, Math.max(0, p.conversion_progress ?? 0)) * 100);
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="project-row"
      data-id={p.project_id}
      data-name={p.name}
      data-state={p.state}
      data-chapters={chapters ?? ''}
      data-progress={busy ? percent : ''}
    >
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Anchor
            component={Link}
            to={`/app/studio/${encodeURIComponent(p.project_id)}`}
            fw={600}
            truncate
            data-testid="project-open"
          >
            {p.name}
          </Anchor>
          <Group gap="xs" wrap="wrap">
            <StateBadge state={p.state} />
            <Badge variant="light" color="gray" data-testid="project-chapters">
              {chapters === undefined ? t('studio.chaptersUnknown') : t('studio.chapters', { count: chapters })}
            </Badge>
            {created && (
              <Text size="xs" c="dimmed">
                {t('studio.createdAt', { date: created })}
              </Text>
            )}
          </Group>
          {busy && (
            <Group gap="xs" wrap="nowrap" data-testid="project-progress">
              <Progress value={percent} size="sm" animated style={{ flex: 1, minWidth: 80 }} aria-label={p.name} />
              <Text size="xs" c="dimmed">
                {t('studio.listProgress', { percent })}
              </Text>
            </Group>
          )}
        </Stack>
        <ActionIcon
          variant="subtle"
          color="red"
          size="lg"
          onClick={onDelete}
          aria-label={`${t('studio.delete')} ${p.name}`}
          data-testid="project-delete"
        >
          <IconTrash size={18} />
        </ActionIcon>
      </Group>
    </Paper>
  );
}
