import { useEffect, useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Group, Menu, NumberInput, Paper, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import {
  IconAlertTriangle,
  IconArrowDown,
  IconArrowUp,
  IconDots,
  IconPlayerPlayFilled,
  IconPlus,
  IconRefresh,
  IconTrash,
} from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { STUDIO_LIMITS } from '@polyvox/contracts';
import { editParagraph, type Paragraph, type ParagraphEdit, type ProjectDetail } from '../../../studio/api';
import { useStudioChange } from './queries';
import type { useParagraphAudio } from './useParagraphAudio';
import { speakerColor, useVoices } from './useVoiceNames';

interface Props {
  project: ProjectDetail;
  paragraph: Paragraph;
  /** Its place in the chapter, from 1. */
  n: number;
  first: boolean;
  last: boolean;
  audio: ReturnType<typeof useParagraphAudio>;
  structure: boolean;
  onAddAfter: () => void;
  onRemove: () => void;
  onMove: (delta: -1 | 1) => void;
}

/** A paragraph: its speaker (changeable), its text (saved when it loses focus), the pause after it, play and regenerate. */
export function ParagraphCard(props: Props) {
  const { project, paragraph: p, n, audio, structure } = props;
  const { t } = useTranslation();
  const id = project.project_id;
  const [text, setText] = useState(p.nodes[0]?.text ?? '');
  const [pause, setPause] = useState<number>(p.pause_after_ms);
  // The card stays mounted while the project is read again (a field being typed in keeps its value); the fields
  // follow the server's values when those change.
  const serverText = p.nodes[0]?.text ?? '';
  useEffect(() => setText(serverText), [serverText]);
  useEffect(() => setPause(p.pause_after_ms), [p.pause_after_ms]);
  const voiceId = p.nodes[0]?.voice_id ?? '';
  const voice = useVoices([voiceId]).get(voiceId);
  const edit = useStudioChange((e: ParagraphEdit) => editParagraph(id, p.block_id, e));
  const save = (e: ParagraphEdit) => edit.mutate(e);
  const loading = audio.loadingId === p.block_id;
  const playingThis = audio.playing?.paragraphId === p.block_id;

  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      data-testid="paragraph"
      data-id={p.block_id}
      data-speaker={p.speaker}
      data-voice-id={voiceId}
      data-converted={p.converted}
      data-failed={p.conversion_error?.code ?? ''}
      style={playingThis ? { borderColor: 'var(--mantine-color-violet-5)' } : undefined}
    >
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Group gap={6} wrap="wrap" style={{ minWidth: 0 }}>
            <Menu position="bottom-start" withinPortal>
              <Menu.Target>
                <Badge
                  component="button"
                  type="button"
                  variant="light"
                  color={speakerColor(project.speakers, p.speaker)}
                  style={{ cursor: 'pointer', maxWidth: '100%' }}
                  aria-label={`${t('studio.speaker')}: ${p.speaker}`}
                  data-testid="paragraph-speaker"
                >
                  {p.speaker}
                </Badge>
              </Menu.Target>
              <Menu.Dropdown>
                {project.speakers.map((s) => (
                  <Menu.Item key={s.name} onClick={() => s.name !== p.speaker && save({ speaker: s.name })}>
                    {s.name}
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
            {voice && (
              <Text size="xs" c="dimmed" truncate>
                {t('studio.voice', { name: voice.name })}
              </Text>
            )}
            <Badge size="xs" variant="dot" color={p.converted ? 'teal' : 'gray'} data-testid="paragraph-converted">
              {p.converted ? t('studio.converted') : t('studio.notConverted')}
            </Badge>
          </Group>
          <Group gap={2} wrap="nowrap">
            <Tooltip label={audio.available ? t('studio.play', { n }) : t('studio.playLater')}>
              <ActionIcon
                variant={playingThis ? 'filled' : 'light'}
                onClick={() => void audio.play(p, n, false)}
                loading={loading}
                disabled={!audio.available}
                aria-label={t('studio.play', { n })}
                data-testid="paragraph-play"
              >
                <IconPlayerPlayFilled size={14} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label={audio.available ? t('studio.regenerateParagraph', { n }) : t('studio.playLater')}>
              <ActionIcon
                variant="subtle"
                onClick={() => void audio.play(p, n, true)}
                disabled={!audio.available || loading}
                aria-label={t('studio.regenerateParagraph', { n })}
                data-testid="paragraph-regenerate"
              >
                <IconRefresh size={16} />
              </ActionIcon>
            </Tooltip>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="subtle" color="gray" aria-label={t('studio.paragraphMenu', { n })}>
                  <IconDots size={16} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item leftSection={<IconPlus size={14} />} disabled={!structure} onClick={props.onAddAfter}>
                  {t('studio.addParagraph')}
                </Menu.Item>
                <Menu.Item
                  leftSection={<IconArrowUp size={14} />}
                  disabled={!structure || props.first}
                  onClick={() => props.onMove(-1)}
                >
                  {t('studio.moveUp')}
                </Menu.Item>
                <Menu.Item
                  leftSection={<IconArrowDown size={14} />}
                  disabled={!structure || props.last}
                  onClick={() => props.onMove(1)}
                >
                  {t('studio.moveDown')}
                </Menu.Item>
                <Menu.Item color="red" leftSection={<IconTrash size={14} />} disabled={!structure} onClick={props.onRemove}>
                  {t('studio.removeParagraph')}
                </Menu.Item>
                {!structure && (
                  <Text size="xs" c="dimmed" px="sm" py={4} maw={240}>
                    {t('studio.structureLater')}
                  </Text>
                )}
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
        {p.conversion_error && (
          <Alert
            color="red"
            variant="light"
            p="xs"
            icon={<IconAlertTriangle size={16} />}
            data-testid="paragraph-error"
            data-code={p.conversion_error.code}
          >
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Text size="sm" style={{ overflowWrap: 'anywhere', flex: 1, minWidth: 160 }}>
                {t('studio.paragraphFailed', { message: p.conversion_error.message })}
              </Text>
              <Button
                size="compact-sm"
                variant="light"
                color="red"
                leftSection={<IconRefresh size={14} />}
                onClick={() => void audio.play(p, n, true)}
                loading={loading}
                disabled={!audio.available}
                data-testid="paragraph-retry"
              >
                {t('studio.retryParagraph')}
              </Button>
            </Group>
          </Alert>
        )}
        <Textarea
          autosize
          minRows={1}
          maxRows={12}
          value={text}
          maxLength={STUDIO_LIMITS.paragraphMaxLength}
          aria-label={t('studio.paragraphText', { n })}
          onChange={(e) => setText(e.currentTarget.value)}
          onBlur={() => {
            if (text.trim() && text !== p.nodes[0]?.text) save({ text });
          }}
          error={!text.trim()}
          data-testid="paragraph-text"
        />
        <Group justify="flex-end">
          <NumberInput
            size="xs"
            w={150}
            label={t('studio.pause')}
            min={0}
            max={STUDIO_LIMITS.pauseMaxMs}
            step={250}
            value={pause}
            onChange={(v) => setPause(typeof v === 'number' ? v : 0)}
            onBlur={(e) => {
              // What the field shows as it loses focus: a change typed just before may not have reached `pause` yet.
              const shown = Number(e.currentTarget.value.replace(/[^\d.]/g, ''));
              const typed = e.currentTarget.value.trim() === '' || Number.isNaN(shown) ? pause : shown;
              const ms = Math.round(Math.min(STUDIO_LIMITS.pauseMaxMs, Math.max(0, typed)));
              if (ms !== p.pause_after_ms) save({ pause_after_ms: ms });
            }}
            data-testid="paragraph-pause"
          />
        </Group>
      </Stack>
    </Paper>
  );
}
