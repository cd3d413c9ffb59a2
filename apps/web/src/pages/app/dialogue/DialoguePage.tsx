import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Grid, Group, Paper, Stack, Text } from '@mantine/core';
import { IconDownload, IconMessages, IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { DIALOGUE_LIMITS } from '@polyvox/contracts';
import { describeError, isApiError } from '../../../api/errors';
import { useAccount } from '../../../auth/hooks';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { downloadFileName } from '../../../speech/download-name';
import { useTtsConfig } from '../../../speech/useTtsConfig';
import { distinctVoices, voiceFits } from '../../../studio/turns';
import { CostBar } from '../playground/CostBar';
import { DownloadLabelNote } from '../playground/DownloadLabelNote';
import { VoicePickerModal } from '../playground/VoicePickerModal';
import { BlobPlayer } from '../studio/BlobPlayer';
import { speakerColor, useVoices } from '../studio/useVoiceNames';
import { TurnRow } from './TurnRow';
import { useDialogue } from './useDialogue';

/** A conversation of up to ten voices: turns of a voice and its words, the price, then one file to play and download. */
export function DialoguePage() {
  const { t } = useTranslation();
  const { account } = useAccount();
  const config = useTtsConfig().data;
  const d = useDialogue();
  const [picking, setPicking] = useState<number | null>(null);
  const [tooMany, setTooMany] = useState(false);
  const voices = useVoices(d.turns.map((turn) => turn.voiceId));
  const order = [...new Set(d.turns.map((turn) => turn.voiceId))].map((name) => ({ name }));
  const count = distinctVoices(d.turns);
  // The picker opens on the language of the turn's voice: the other speakers of a conversation mostly share it.
  const pickedLanguage = picking !== null ? voices.get(d.turns[picking]?.voiceId ?? '')?.languages[0] : undefined;
  const filters = useMemo(() => (pickedLanguage ? { language: pickedLanguage } : {}), [pickedLanguage]);
  const over = isApiError(d.estimate.error) && d.estimate.error.code === 'TEXT_TOO_LONG';
  const canGenerate = d.inputs.length > 0 && !d.busy && !over;

  return (
    <Stack data-testid="dialogue-page">
      <PageHeader title={t('dialogue.title')} description={t('dialogue.description')} />
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder radius="md" p="md">
            <Group justify="space-between" mb="sm" wrap="wrap">
              <Text fw={500} size="sm">
                {t('dialogue.turns')}
              </Text>
              <Text size="xs" c="dimmed" data-testid="dialogue-voices" data-count={count}>
                {t('dialogue.voicesCount', { count, max: DIALOGUE_LIMITS.maxVoices })}
              </Text>
            </Group>
            <Stack gap="sm" data-testid="dialogue-turns" data-count={d.turns.length}>
              {d.turns.map((turn, i) => (
                <TurnRow
                  key={turn.key}
                  turn={turn}
                  n={i + 1}
                  voice={voices.get(turn.voiceId)}
                  color={speakerColor(order, turn.voiceId)}
                  first={i === 0}
                  last={i === d.turns.length - 1}
                  only={d.turns.length === 1}
                  disabled={d.busy}
                  onText={(text) => d.edit.text(i, text)}
                  onPickVoice={() => setPicking(i)}
                  onMove={(delta) => d.edit.move(i, delta)}
                  onRemove={() => d.edit.remove(i)}
                />
              ))}
            </Stack>
            <Button
              mt="sm"
              variant="light"
              leftSection={<IconPlus size={16} />}
              onClick={d.edit.add}
              disabled={d.busy || d.turns.length >= DIALOGUE_LIMITS.maxInputs || d.turns.length === 0}
              data-testid="dialogue-add"
            >
              {t('dialogue.add')}
            </Button>
            {tooMany && (
              <Alert color="orange" variant="light" mt="sm" data-testid="dialogue-too-many">
                {t('dialogue.tooManyVoices', { max: DIALOGUE_LIMITS.maxVoices })}
              </Alert>
            )}
            <CostBar
              credits={d.estimate.data?.credits ?? null}
              estimating={d.inputs.length > 0 && !d.estimate.current}
              over={over}
              invalid={false}
              balance={account?.vip.credits}
              canGenerate={canGenerate}
              busy={d.busy}
              jobRunning={false}
              asJob={false}
              onGenerate={() => void d.generate()}
              onStop={d.stop}
            />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <DialogueResultPanel d={d} explicit={config?.ai_label_explicit} position={config?.ai_label_position} />
        </Grid.Col>
      </Grid>
      <VoicePickerModal
        opened={picking !== null}
        initialFilters={filters}
        selectedId={picking !== null ? d.turns[picking]?.voiceId : undefined}
        onClose={() => setPicking(null)}
        onSelect={(voice) => {
          const i = picking!;
          setPicking(null);
          const fits = voiceFits(d.turns, i, voice.id);
          setTooMany(!fits);
          if (fits) d.edit.voice(i, voice.id);
        }}
      />
    </Stack>
  );
}

function DialogueResultPanel({
  d,
  explicit,
  position,
}: {
  d: ReturnType<typeof useDialogue>;
  explicit: Parameters<typeof DownloadLabelNote>[0]['explicit'];
  position: Parameters<typeof DownloadLabelNote>[0]['position'];
}) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [url, setUrl] = useState<string | null>(null);
  const blob = d.result?.blob ?? null;
  useEffect(() => {
    if (!blob) return;
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [blob]);
  if (!d.result && !d.error)
    return <EmptyState icon={<IconMessages size={26} />} title={t('dialogue.emptyTitle')} body={t('dialogue.emptyBody')} />;
  const name = d.result ? downloadFileName('dialogue', 'mp3', d.result.at) : '';
  return (
    <Paper withBorder radius="md" p="md" data-testid="dialogue-result">
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={500} size="sm">
            {t('dialogue.resultTitle')}
          </Text>
          {d.result && url && (
            <Button
              component="a"
              href={url}
              download={name}
              size="xs"
              variant="light"
              leftSection={<IconDownload size={14} />}
              data-testid="dialogue-download"
              data-file-name={name}
            >
              {t('dialogue.download')}
            </Button>
          )}
        </Group>
        {d.error !== null && (
          <Alert color="red" variant="light" role="alert" data-testid="dialogue-error">
            {describeError(d.error, ui, t('errors.network'))}
          </Alert>
        )}
        {d.result && (
          <>
            <BlobPlayer blob={d.result.blob} />
            {d.result.characters !== null && (
              <Text size="xs" c="dimmed" data-testid="dialogue-characters" data-characters={d.result.characters}>
                {t('dialogue.generated', { characters: formatNumber(d.result.characters, ui) })}
              </Text>
            )}
            <DownloadLabelNote format="mp3" explicit={explicit} position={position} streamed={false} />
          </>
        )}
      </Stack>
    </Paper>
  );
}
