import { ActionIcon, Loader, Tooltip } from '@mantine/core';
import { IconPlayerPlayFilled, IconPlayerStopFilled, IconVolumeOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Voice } from '../../../speech/api';
import { previewPlayer, usePreviewState } from '../../../speech/preview-audio';

/** Plays a voice's pre-rendered preview through the one shared preview element. */
export function PreviewButton({ voice }: { voice: Voice }) {
  const { t } = useTranslation();
  const state = usePreviewState();
  const url = voice.preview_url;
  if (!url) {
    return (
      <Tooltip label={t('voices.noPreview')}>
        <ActionIcon variant="subtle" color="gray" disabled aria-label={t('voices.noPreview')}>
          <IconVolumeOff size={16} />
        </ActionIcon>
      </Tooltip>
    );
  }
  const mine = state.id === voice.id;
  const status = mine ? state.status : 'idle';
  const label =
    status === 'error' ? t('voices.previewFailed') : status === 'idle' ? t('voices.preview') : t('voices.stopPreview');
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant={status === 'playing' ? 'filled' : 'light'}
        color={status === 'error' ? 'red' : 'violet'}
        radius="xl"
        size="lg"
        aria-label={label}
        data-testid="voice-preview"
        data-state={status}
        onClick={() => previewPlayer.toggle(voice.id, url)}
      >
        {status === 'loading' ? (
          <Loader size={14} color="violet" />
        ) : status === 'playing' ? (
          <IconPlayerStopFilled size={14} />
        ) : (
          <IconPlayerPlayFilled size={14} />
        )}
      </ActionIcon>
    </Tooltip>
  );
}
