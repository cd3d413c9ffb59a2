import { useMemo, useState } from 'react';
import { Avatar, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { notifySuccess } from '../../../lib/notify';
import { mapSpeaker, type ProjectDetail, type Speaker } from '../../../studio/api';
import { VoicePickerModal } from '../playground/VoicePickerModal';
import { useStudioChange } from './queries';
import { speakerColor, useVoices } from './useVoiceNames';

/** Each speaker found in the document and the one voice that reads it across the project; change it with the picker. */
export function SpeakersPanel({ project }: { project: ProjectDetail }) {
  const { t } = useTranslation();
  const [picking, setPicking] = useState<Speaker | null>(null);
  const fallback = project.default_paragraph_voice_id ?? '';
  const voices = useVoices([fallback, ...project.speakers.map((s) => s.voice_id ?? '')]);
  // The picker opens on the language of the speaker's voice now (the document's language, as a rule).
  const pickedLanguage = picking ? voices.get(picking.voice_id ?? fallback)?.languages[0] : undefined;
  const filters = useMemo(() => (pickedLanguage ? { language: pickedLanguage } : {}), [pickedLanguage]);
  const map = useStudioChange((a: { speaker: string; voiceId: string; voiceName: string }) =>
    mapSpeaker(project.project_id, a.speaker, a.voiceId),
  );

  return (
    <Paper withBorder radius="md" p="md" data-testid="speakers-panel" data-count={project.speakers.length}>
      <Text fw={500} size="sm">
        {t('studio.speakersTitle')}
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        {t('studio.speakersHint')}
      </Text>
      <Stack gap="sm">
        {project.speakers.map((s) => {
          const voiceId = s.voice_id ?? fallback;
          const voice = voices.get(voiceId);
          return (
            <Stack key={s.name} gap={4} data-testid="speaker-row" data-speaker={s.name} data-voice-id={s.voice_id ?? ''}>
              <Group gap="xs" wrap="nowrap">
                <Badge
                  variant="light"
                  color={speakerColor(project.speakers, s.name)}
                  style={{ flexShrink: 1, minWidth: 0, maxWidth: '70%' }}
                >
                  {s.name}
                </Badge>
                <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                  {t('studio.speakerParagraphs', { count: s.paragraphs })}
                </Text>
              </Group>
              <Group justify="space-between" wrap="nowrap" gap="xs">
                <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
                  <Avatar src={voice?.avatar} alt="" radius="xl" size="sm" />
                  <Text size="sm" truncate data-testid="speaker-voice-name">
                    {s.voice_id ? (voice?.name ?? '…') : `${t('studio.defaultVoice')}${voice ? ` · ${voice.name}` : ''}`}
                  </Text>
                </Group>
                <Button
                  size="compact-xs"
                  variant="light"
                  style={{ flexShrink: 0 }}
                  onClick={() => setPicking(s)}
                  loading={map.isPending && map.variables?.speaker === s.name}
                  aria-label={`${t('studio.chooseVoice')}: ${s.name}`}
                  data-testid="speaker-choose"
                >
                  {t('studio.chooseVoice')}
                </Button>
              </Group>
            </Stack>
          );
        })}
      </Stack>
      <VoicePickerModal
        opened={!!picking}
        initialFilters={filters}
        selectedId={picking ? (picking.voice_id ?? fallback) : undefined}
        onClose={() => setPicking(null)}
        onSelect={(voice) => {
          const speaker = picking!.name;
          setPicking(null);
          map.mutate(
            { speaker, voiceId: voice.id, voiceName: voice.name },
            { onSuccess: () => notifySuccess(t('studio.mapped', { speaker, voice: voice.name })) },
          );
        }}
      />
    </Paper>
  );
}
