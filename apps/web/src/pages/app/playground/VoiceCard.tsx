import { Alert, Avatar, Badge, Button, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { IconArrowsShuffle, IconSwitchHorizontal } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import type { Voice } from '../../../speech/api';
import { languageSummary } from '../../../speech/languages';
import { findModel, useTtsConfig } from '../../../speech/useTtsConfig';
import { mixPath } from '../../../speech/voice-query';
import { PreviewButton } from '../voices/PreviewButton';

interface Props {
  voice: Voice | undefined;
  loading: boolean;
  missing: boolean;
  onChange: () => void;
}

/** The chosen voice, its preview, and the way to the picker. */
export function VoiceCard({ voice, loading, missing, onChange }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  const langs = voice ? languageSummary(voice.languages, ui, 3) : null;
  return (
    <Paper withBorder radius="md" p="lg" data-testid="playground-voice" data-voice-id={voice?.id}>
      <Text fw={500} size="sm" mb="sm">
        {t('playground.voice')}
      </Text>
      {missing && (
        <Alert color="orange" variant="light" mb="sm">
          {t('playground.voiceMissing')}
        </Alert>
      )}
      {loading ? (
        <Skeleton h={48} />
      ) : voice ? (
        <Group wrap="nowrap" gap="sm">
          <Avatar src={voice.avatar} alt="" radius="xl" />
          <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
            <Text fw={600} truncate title={voice.name} data-testid="playground-voice-name">
              {voice.name}
            </Text>
            <Group gap={4} wrap="nowrap">
              <Badge size="xs" variant="outline" color="gray" style={{ flexShrink: 0 }}>
                {findModel(config, voice.model)?.model_name ?? voice.model}
              </Badge>
              <Text size="xs" c="dimmed" truncate>
                {langs?.text}
                {langs && langs.more > 0 ? ` +${langs.more}` : ''}
              </Text>
            </Group>
          </Stack>
          <PreviewButton voice={voice} />
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          {t('playground.noVoice')}
        </Text>
      )}
      <Button
        fullWidth
        variant="light"
        mt="md"
        leftSection={<IconSwitchHorizontal size={16} />}
        onClick={onChange}
        data-testid="playground-change-voice"
      >
        {voice ? t('playground.changeVoice') : t('playground.chooseVoice')}
      </Button>
      <Button
        component={Link}
        to={voice?.mixable ? mixPath(voice.id) : '/app/mix'}
        fullWidth
        variant="subtle"
        mt="xs"
        leftSection={<IconArrowsShuffle size={16} />}
        data-testid="playground-mix"
      >
        {t('design.mixWithOthers')}
      </Button>
    </Paper>
  );
}
