import { Box, Button, Group, Paper, SegmentedControl, Slider, Stack, Text } from '@mantine/core';
import { IconRestore } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AudioFormat, TtsConfig } from '../../../speech/api';
import { DownloadLabelNote } from './DownloadLabelNote';
import { DEFAULT_SETTINGS, FORMATS, PITCH, SPEED, type SynthesisSettings } from './settings';

interface Props {
  value: SynthesisSettings;
  onChange: (next: SynthesisSettings) => void;
  disabled?: boolean;
  /** The operator's explicit AI label, from /tts/config. */
  explicitLabel?: TtsConfig['ai_label_explicit'];
  /** Where it is heard (before or after the speech). */
  explicitPosition?: TtsConfig['ai_label_position'];
  /** The result will stream (not run as a job): its download is labelled, not signed. */
  streamed: boolean;
}

const FORMAT_LABEL: Record<AudioFormat, string> = { mp3: 'MP3', wav: 'WAV', opus: 'Opus', pcm: 'PCM' };

/** Speed (0.5–2×), pitch (±12 semitones) and the output format. */
export function SettingsPanel({ value, onChange, disabled, explicitLabel, explicitPosition, streamed }: Props) {
  const { t } = useTranslation();
  const changed =
    value.speed !== DEFAULT_SETTINGS.speed || value.pitch !== DEFAULT_SETTINGS.pitch || value.format !== DEFAULT_SETTINGS.format;
  return (
    <Paper withBorder radius="md" p="lg" data-testid="playground-settings">
      <Group justify="space-between" mb="sm">
        <Text fw={500} size="sm">
          {t('playground.settings')}
        </Text>
        {changed && (
          <Button
            variant="subtle"
            color="gray"
            size="compact-xs"
            leftSection={<IconRestore size={12} />}
            onClick={() => onChange(DEFAULT_SETTINGS)}
            disabled={disabled}
          >
            {t('playground.reset')}
          </Button>
        )}
      </Group>
      <Stack gap="lg">
        <div>
          <Group justify="space-between" mb={4}>
            <Text size="sm">{t('playground.speed')}</Text>
            <Text size="sm" c="dimmed" data-testid="playground-speed-value">
              {value.speed.toFixed(2)}×
            </Text>
          </Group>
          <Slider
            min={SPEED.min}
            max={SPEED.max}
            step={SPEED.step}
            value={value.speed}
            onChange={(speed) => onChange({ ...value, speed })}
            label={(v) => `${v.toFixed(2)}×`}
            marks={[{ value: 0.5 }, { value: 1 }, { value: 1.5 }, { value: 2 }]}
            disabled={disabled}
            thumbLabel={t('playground.speed')}
            data-testid="playground-speed"
          />
        </div>
        <div>
          <Group justify="space-between" mb={4}>
            <Text size="sm">{t('playground.pitch')}</Text>
            <Text size="sm" c="dimmed" data-testid="playground-pitch-value">
              {t('playground.semitones', { value: value.pitch > 0 ? `+${value.pitch}` : String(value.pitch) })}
            </Text>
          </Group>
          <Slider
            min={PITCH.min}
            max={PITCH.max}
            step={PITCH.step}
            value={value.pitch}
            onChange={(pitch) => onChange({ ...value, pitch })}
            marks={[{ value: -12 }, { value: 0 }, { value: 12 }]}
            disabled={disabled}
            thumbLabel={t('playground.pitch')}
            data-testid="playground-pitch"
          />
        </div>
        <div>
          <Text size="sm" mb={4}>
            {t('playground.format')}
          </Text>
          <SegmentedControl
            fullWidth
            value={value.format}
            onChange={(format) => onChange({ ...value, format: format as AudioFormat })}
            data={FORMATS.map((f) => ({ value: f, label: FORMAT_LABEL[f] }))}
            disabled={disabled}
            data-testid="playground-format"
          />
          <Box mt="xs">
            <DownloadLabelNote format={value.format} explicit={explicitLabel} position={explicitPosition} streamed={streamed} />
          </Box>
        </div>
      </Stack>
    </Paper>
  );
}
