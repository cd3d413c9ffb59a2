import { useEffect, useState } from 'react';
import { Button, Grid, Stack } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { PageHeader } from '../../../components/PageHeader';
import { usePlaygroundVoice } from '../playground/usePlaygroundVoice';
import { VoiceCard } from '../playground/VoiceCard';
import { VoicePickerModal } from '../playground/VoicePickerModal';
import { CreateDictionaryDialog } from './CreateDictionaryDialog';
import { DictionaryList } from './DictionaryList';
import { DictionaryPanel } from './DictionaryPanel';
import { useDictionaries } from './queries';
import { SpokenPreview } from './SpokenPreview';

/**
 * Pronunciation dictionaries: the list (default and archived marked), one dictionary's rules (play, remove, add),
 * its versions (each downloadable as PLS), and the spoken-form preview. The chosen dictionary is the route's `?d=`.
 */
export function PronunciationPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const [showArchived, setShowArchived] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  const { voice, loading, missing, choose } = usePlaygroundVoice();
  const list = useDictionaries(showArchived);
  const selected = params.get('d') ?? list.data?.pronunciation_dictionaries[0]?.id ?? null;
  const select = (id: string) => {
    params.set('d', id);
    setParams(params, { replace: true });
  };
  useEffect(() => () => audio?.pause(), [audio]);

  return (
    <Stack data-testid="pronunciation-page">
      <PageHeader
        title={t('pronunciation.title')}
        description={t('pronunciation.description')}
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="dictionary-create">
            {t('pronunciation.create')}
          </Button>
        }
      />
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <DictionaryList selected={selected} onSelect={select} showArchived={showArchived} onShowArchived={setShowArchived} />
            <VoiceCard voice={voice} loading={loading} missing={missing} onChange={() => setPickerOpen(true)} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            {selected && <DictionaryPanel key={selected} id={selected} voiceId={voice?.id} audio={audio} />}
            <SpokenPreview voiceId={voice?.id} initial={[]} />
          </Stack>
        </Grid.Col>
      </Grid>
      {/* The one element every rule's play button speaks through. */}
      <audio ref={setAudio} data-testid="rule-audio" hidden />
      {creating && (
        <CreateDictionaryDialog
          onClose={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            select(id);
          }}
        />
      )}
      <VoicePickerModal
        opened={pickerOpen}
        initialFilters={{}}
        selectedId={voice?.id}
        onClose={() => setPickerOpen(false)}
        onSelect={(v) => {
          choose(v);
          setPickerOpen(false);
        }}
      />
    </Stack>
  );
}
