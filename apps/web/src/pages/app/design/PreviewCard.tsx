import type { ReactNode } from 'react';
import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PreviewCreated } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber, formatSeconds } from '../../../lib/format';
import { findModel, useTtsConfig } from '../../../speech/useTtsConfig';
import { PreviewPlayer } from './PreviewPlayer';

interface Props {
  preview: PreviewCreated;
  model: string;
  /** A label above the version: A, B, C side by side. */
  label?: string;
  autoplay?: boolean;
  action?: ReactNode;
  testId?: string;
}

/** One preview version: its model, length and charge, its waveform player, and an action. */
export function PreviewCard({ preview, model, label, autoplay, action, testId = 'preview-card' }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid={testId}
      data-preview-id={preview.id}
      data-version={preview.version}
      data-model={model}
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Group gap={6} wrap="nowrap">
            {label && (
              <Badge variant="filled" color="violet" radius="sm">
                {label}
              </Badge>
            )}
            <Text fw={600} size="sm">
              {t('design.version', { version: String(preview.version) })}
            </Text>
            <Badge variant="outline" color="gray" size="sm">
              {findModel(config, model)?.model_name ?? model}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed" data-testid="preview-charged" data-credits={preview.credits}>
            {t('design.previewMeta', {
              seconds: formatSeconds(preview.duration, ui),
              credits: formatNumber(preview.credits, ui),
            })}
          </Text>
        </Group>
        <PreviewPlayer url={preview.audio_url} previewId={preview.id} autoplay={autoplay} />
        {action && <Group justify="flex-end">{action}</Group>}
      </Stack>
    </Paper>
  );
}
