import { ActionIcon, Avatar, Button, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Voice } from '../../../speech/api';
import type { Turn } from '../../../studio/turns';

interface Props {
  turn: Turn;
  /** Its place, from 1. */
  n: number;
  voice: Voice | undefined;
  color: string;
  first: boolean;
  last: boolean;
  only: boolean;
  disabled: boolean;
  onText: (text: string) => void;
  onPickVoice: () => void;
  onMove: (delta: -1 | 1) => void;
  onRemove: () => void;
}

/** One turn of the dialogue: its voice (the picker changes it), its words, and its place. */
export function TurnRow({ turn, n, voice, color, first, last, only, disabled, ...on }: Props) {
  const { t } = useTranslation();
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      data-testid="dialogue-turn"
      data-key={turn.key}
      data-voice-id={turn.voiceId}
      style={{ borderLeft: `4px solid var(--mantine-color-${color}-5)` }}
    >
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Button
            variant="subtle"
            color={color}
            size="compact-sm"
            leftSection={<Avatar src={voice?.avatar} alt="" size={20} radius="xl" />}
            onClick={on.onPickVoice}
            disabled={disabled}
            aria-label={t('dialogue.changeVoice', { n, name: voice?.name ?? t('dialogue.noVoice') })}
            data-testid="dialogue-turn-voice"
            styles={{ root: { minWidth: 0, maxWidth: '100%' }, label: { overflow: 'hidden', textOverflow: 'ellipsis' } }}
          >
            {voice?.name ?? t('dialogue.chooseVoice')}
          </Button>
          <Group gap={2} wrap="nowrap">
            <Text size="xs" c="dimmed" mr={4} style={{ whiteSpace: 'nowrap' }}>
              {t('dialogue.turn', { n })}
            </Text>
            <ActionIcon
              variant="subtle"
              color="gray"
              disabled={disabled || first}
              onClick={() => on.onMove(-1)}
              aria-label={t('dialogue.moveUp', { n })}
              data-testid="dialogue-turn-up"
            >
              <IconArrowUp size={16} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              color="gray"
              disabled={disabled || last}
              onClick={() => on.onMove(1)}
              aria-label={t('dialogue.moveDown', { n })}
              data-testid="dialogue-turn-down"
            >
              <IconArrowDown size={16} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              color="red"
              disabled={disabled || only}
              onClick={on.onRemove}
              aria-label={t('dialogue.remove', { n })}
              data-testid="dialogue-turn-remove"
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        </Group>
        <Textarea
          autosize
          minRows={2}
          maxRows={8}
          value={turn.text}
          placeholder={t('dialogue.turnPlaceholder')}
          aria-label={t('dialogue.turnText', { n })}
          onChange={(e) => on.onText(e.currentTarget.value)}
          disabled={disabled}
          data-testid="dialogue-turn-text"
        />
      </Stack>
    </Paper>
  );
}
