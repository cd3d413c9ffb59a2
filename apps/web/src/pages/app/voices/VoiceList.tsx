import type { ReactNode } from 'react';
import { Avatar, Badge, Divider, Group, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import type { TtsConfig, Voice } from '../../../speech/api';
import { languageSummary } from '../../../speech/languages';
import { findModel } from '../../../speech/useTtsConfig';
import { PreviewButton } from './PreviewButton';

interface Props {
  voices: Voice[];
  config: TtsConfig | undefined;
  /** The row's own action (use in playground, select). */
  action: (voice: Voice) => ReactNode;
  selectedId?: string | null;
}

const GENDER_COLOR = { male: 'blue', female: 'pink', neutral: 'teal' } as const;

export function VoiceRow({
  voice,
  config,
  action,
  selected,
}: {
  voice: Voice;
  config: TtsConfig | undefined;
  action: ReactNode;
  selected?: boolean;
}) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const langs = languageSummary(voice.languages, ui);
  const model = findModel(config, voice.model);
  return (
    // On a phone the actions move under the name instead of squeezing it to nothing.
    <Group
      wrap="wrap"
      gap="sm"
      px="md"
      py="sm"
      data-testid="voice-row"
      data-voice-id={voice.id}
      data-model={voice.model}
      data-gender={voice.gender}
      bg={selected ? 'var(--mantine-color-violet-0)' : undefined}
    >
      <Group wrap="nowrap" gap="md" style={{ flex: '1 1 220px', minWidth: 0 }}>
        <PreviewButton voice={voice} />
        <Avatar src={voice.avatar} alt="" radius="xl" size="md" />
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <Group gap={6} wrap="nowrap">
            <Text fw={600} size="sm" truncate title={voice.name} data-testid="voice-name">
              {voice.name}
            </Text>
            <Badge size="xs" variant="light" color={GENDER_COLOR[voice.gender]}>
              {t(`genders.${voice.gender}`)}
            </Badge>
            {voice.neural && (
              <Badge size="xs" variant="light" color="violet" title={t('voices.neuralHint')} data-testid="voice-neural">
                {t('voices.neural')}
              </Badge>
            )}
            {voice.non_commercial && (
              <Badge
                size="xs"
                variant="light"
                color="orange"
                title={t('voices.nonCommercialHint', { licence: voice.licence ?? '' })}
                data-testid="voice-non-commercial"
              >
                {t('voices.nonCommercial')}
              </Badge>
            )}
          </Group>
          <Text size="xs" c="dimmed" truncate title={voice.languages.join(', ')}>
            {langs.text}
            {langs.more > 0 ? ` +${langs.more}` : ''}
          </Text>
        </Stack>
      </Group>
      <Group wrap="nowrap" gap="md" style={{ flexShrink: 0, marginLeft: 'auto', maxWidth: '100%' }}>
        <Badge variant="outline" color="gray" visibleFrom="sm" style={{ flexShrink: 0 }}>
          {model?.model_name ?? voice.model}
        </Badge>
        <div style={{ flexShrink: 0, maxWidth: '100%' }}>{action}</div>
      </Group>
    </Group>
  );
}

/** Voices as rows: preview, avatar, name, gender, languages, model and an action. */
export function VoiceList({ voices, config, action, selectedId }: Props) {
  return (
    <Paper withBorder radius="md" data-testid="voice-list">
      <Stack gap={0}>
        {voices.map((voice, i) => (
          <div key={voice.id}>
            {i > 0 && <Divider />}
            <VoiceRow voice={voice} config={config} action={action(voice)} selected={voice.id === selectedId} />
          </div>
        ))}
      </Stack>
    </Paper>
  );
}
