import { useState } from 'react';
import { ActionIcon, Button, Group, Menu, Paper, Progress, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconDots, IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { addChapter, moveChapter, removeChapter, type ProjectDetail } from '../../../studio/api';
import { chapterCounts, chapterPercent } from '../../../studio/progress';
import { useStudioChange } from './queries';

interface Props {
  project: ProjectDetail;
  selected: string | undefined;
  onSelect: (chapterId: string) => void;
  /** Whether the add/remove/reorder routes are there (false: the controls are disabled with a note). */
  structure: boolean;
  onMissing: () => void;
}

/** The project's chapters in order, each with its conversion progress; add, remove and reorder them. */
export function ChapterList({ project, selected, onSelect, structure, onMissing }: Props) {
  const { t } = useTranslation();
  const id = project.project_id;
  const [name, setName] = useState('');
  const add = useStudioChange((n: string) => addChapter(id, n), onMissing);
  const remove = useStudioChange((chapterId: string) => removeChapter(id, chapterId), onMissing);
  const move = useStudioChange((a: { chapterId: string; to: number }) => moveChapter(id, a.chapterId, a.to), onMissing);
  const last = project.chapters.length - 1;

  return (
    <Paper withBorder radius="md" p="sm" data-testid="chapter-list" data-count={project.chapters.length}>
      <Text fw={500} size="sm" mb="xs" px={4}>
        {t('studio.chaptersTitle')}
      </Text>
      <Stack gap={4}>
        {project.chapters.map((c, i) => {
          const counts = chapterCounts(c);
          const active = c.chapter_id === selected;
          return (
            <Group
              key={c.chapter_id}
              wrap="nowrap"
              gap={4}
              data-testid="chapter-item"
              data-chapter-id={c.chapter_id}
              data-active={active}
              style={{
                borderRadius: 'var(--mantine-radius-md)',
                background: active ? 'var(--mantine-color-violet-light)' : undefined,
              }}
            >
              <UnstyledButton
                onClick={() => onSelect(c.chapter_id)}
                p={6}
                style={{ flex: 1, minWidth: 0 }}
                aria-current={active ? 'true' : undefined}
                data-testid="chapter-select"
              >
                <Text size="sm" fw={active ? 600 : 400} truncate>
                  {c.name}
                </Text>
                <Text size="xs" c="dimmed" truncate>
                  {t('studio.chapterProgress', counts)}
                </Text>
                {c.failed_paragraphs && (
                  <Text size="xs" c="red.9" truncate data-testid="chapter-failed" data-count={c.failed_paragraphs.length}>
                    {t('studio.chapterFailed', { count: c.failed_paragraphs.length })}
                  </Text>
                )}
                <Progress value={chapterPercent(c)} size="xs" mt={4} animated={c.state === 'converting'} aria-label={c.name} />
              </UnstyledButton>
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <ActionIcon variant="subtle" color="gray" aria-label={t('studio.chapterMenu', { name: c.name })}>
                    <IconDots size={16} />
                  </ActionIcon>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item
                    leftSection={<IconArrowUp size={14} />}
                    disabled={!structure || i === 0}
                    onClick={() => move.mutate({ chapterId: c.chapter_id, to: i - 1 })}
                  >
                    {t('studio.moveUp')}
                  </Menu.Item>
                  <Menu.Item
                    leftSection={<IconArrowDown size={14} />}
                    disabled={!structure || i === last}
                    onClick={() => move.mutate({ chapterId: c.chapter_id, to: i + 1 })}
                  >
                    {t('studio.moveDown')}
                  </Menu.Item>
                  <Menu.Item
                    color="red"
                    leftSection={<IconTrash size={14} />}
                    disabled={!structure || project.chapters.length === 1}
                    onClick={() => {
                      if (window.confirm(t('studio.removeChapterBody', { name: c.name }))) remove.mutate(c.chapter_id);
                    }}
                  >
                    {t('studio.removeChapter')}
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </Group>
          );
        })}
      </Stack>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) add.mutate(name.trim(), { onSuccess: () => setName('') });
        }}
      >
        <Group gap={4} mt="sm" wrap="nowrap">
          <TextInput
            size="xs"
            style={{ flex: 1, minWidth: 0 }}
            placeholder={t('studio.newChapterName')}
            aria-label={t('studio.newChapterName')}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            disabled={!structure}
            data-testid="chapter-add-name"
          />
          <Button
            type="submit"
            size="xs"
            variant="light"
            leftSection={<IconPlus size={14} />}
            disabled={!structure || !name.trim()}
            loading={add.isPending}
            data-testid="chapter-add"
          >
            {t('studio.addChapter')}
          </Button>
        </Group>
      </form>
      {!structure && (
        <Text size="xs" c="dimmed" mt="xs" data-testid="structure-later">
          {t('studio.structureLater')}
        </Text>
      )}
    </Paper>
  );
}
