import { useMemo, useState } from 'react';
import { Grid, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { useAccount } from '../../../auth/hooks';
import { PageHeader } from '../../../components/PageHeader';
import { notifyInfo } from '../../../lib/notify';
import type { AudioFormat, TextType } from '../../../speech/api';
import { downloadFileName } from '../../../speech/download-name';
import { libraryLanguage } from '../../../speech/languages';
import { previewPlayer } from '../../../speech/preview-audio';
import { useSynthesis } from '../../../speech/synthesis/useSynthesis';
import { runsAsJob, textState } from '../../../speech/text';
import { useTtsConfig } from '../../../speech/useTtsConfig';
import type { VoiceFilters } from '../../../speech/voice-query';
import { CostBar } from './CostBar';
import { DictionaryPicker, locatorsOf } from './DictionaryPicker';
import { LanguageWarning } from './LanguageWarning';
import { ResultPanel } from './ResultPanel';
import { DEFAULT_SETTINGS, type SynthesisSettings } from './settings';
import { SettingsPanel } from './SettingsPanel';
import { TextPanel } from './TextPanel';
import { useEstimate } from './useEstimate';
import { useSpokenForm } from './useSpokenForm';
import { usePlaygroundVoice } from './usePlaygroundVoice';
import { VoiceCard } from './VoiceCard';
import { VoicePickerModal } from './VoicePickerModal';

/** Text → voice → settings → price → generate, then listen while it streams in, and download. */
export function PlaygroundPage() {
  const { t } = useTranslation();
  const config = useTtsConfig().data;
  const max = config?.limits.max_text_length ?? LIMITS.maxTextLength;
  const { voice, loading: voiceLoading, missing, choose } = usePlaygroundVoice();
  const { account } = useAccount();
  const [text, setText] = useState('');
  const [textType, setTextType] = useState<TextType>('text');
  const [settings, setSettings] = useState<SynthesisSettings>(DEFAULT_SETTINGS);
  const [dictionaries, setDictionaries] = useState<string[]>([]);
  const locators = useMemo(() => locatorsOf(dictionaries), [dictionaries]);
  const [picker, setPicker] = useState<{ opened: boolean; filters: VoiceFilters }>({ opened: false, filters: {} });
  const [last, setLast] = useState<{ voiceName: string; format: AudioFormat; at: Date } | null>(null);

  const ssml = useSpokenForm(text, voice?.id, textType);
  const estimateFields = useMemo(() => ({ text_type: textType, ...locators }), [textType, locators]);
  // SSML is held to the limit and priced by its spoken characters, once the server has read them.
  const state = textState(text, max, textType === 'ssml' ? ssml.spoken?.characters : undefined);
  const estimate = useEstimate(text, voice?.id, !state.empty && !state.over && !ssml.problem, estimateFields);
  const { session, snapshot } = useSynthesis();
  const busy = snapshot.phase === 'waiting' || snapshot.phase === 'streaming' || snapshot.phase === 'job';
  const asJob = runsAsJob(state.characters, config?.limits.job_threshold);
  const shown = !state.empty && !state.over ? estimate.data : undefined;
  const conflict = shown?.language_supported === false && estimate.current;
  const canGenerate = !!voice && !state.empty && !state.over && !conflict && !busy && !ssml.problem;

  const availableLanguages = useMemo(() => [...new Set((config?.models ?? []).flatMap((m) => m.languages))], [config]);
  const detected = libraryLanguage(shown?.language, availableLanguages);

  const generate = () => {
    if (!voice || !canGenerate) return;
    previewPlayer.stop();
    setLast({ voiceName: voice.name, format: settings.format, at: new Date() });
    void session.start(
      {
        text,
        voice_id: voice.id,
        format: settings.format,
        speed: settings.speed,
        pitch: settings.pitch,
        text_type: textType,
        ...locators,
      },
      asJob,
    );
  };

  const stop = () => {
    session.cancel();
    notifyInfo(t('playground.stopped'));
  };

  const fileName = last ? downloadFileName(last.voiceName, last.format, last.at) : '';

  return (
    <Stack data-testid="playground-page">
      <PageHeader title={t('playground.title')} description={t('playground.description')} />
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            <TextPanel
              text={text}
              onChange={setText}
              state={state}
              disabled={busy}
              language={voice?.languages[0]}
              textType={textType}
              onTextType={setTextType}
              problem={ssml.problem}
              spoken={ssml.spoken?.text}
              footer={
                <CostBar
                  credits={shown ? shown.credits : null}
                  over={state.over}
                  invalid={!!ssml.problem}
                  estimating={!state.empty && !state.over && !!voice && !estimate.current}
                  balance={account?.vip.credits}
                  canGenerate={canGenerate}
                  busy={busy}
                  jobRunning={snapshot.phase === 'job'}
                  asJob={asJob}
                  onGenerate={generate}
                  onStop={stop}
                />
              }
            />
            {conflict && voice && (
              <LanguageWarning
                detected={shown?.language}
                voiceName={voice.name}
                onFindVoice={detected ? () => setPicker({ opened: true, filters: { language: detected } }) : undefined}
              />
            )}
            <ResultPanel snapshot={snapshot} fileName={fileName} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <VoiceCard
              voice={voice}
              loading={voiceLoading}
              missing={missing}
              onChange={() => setPicker((p) => ({ ...p, opened: true }))}
            />
            <SettingsPanel
              value={settings}
              onChange={setSettings}
              disabled={busy}
              explicitLabel={config?.ai_label_explicit}
              explicitPosition={config?.ai_label_position}
              streamed={!asJob}
            />
            <DictionaryPicker value={dictionaries} onChange={setDictionaries} disabled={busy} framed />
          </Stack>
        </Grid.Col>
      </Grid>
      <VoicePickerModal
        opened={picker.opened}
        initialFilters={picker.filters}
        selectedId={voice?.id}
        onClose={() => setPicker((p) => ({ ...p, opened: false }))}
        onSelect={(v) => {
          choose(v);
          setPicker((p) => ({ ...p, opened: false }));
        }}
      />
    </Stack>
  );
}
