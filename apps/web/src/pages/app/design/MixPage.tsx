import { useEffect, useMemo, useState } from 'react';
import {
  ActionIcon,
  Alert,
  Avatar,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  Select,
  Slider,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconArrowsShuffle, IconDeviceFloppy, IconPlus, IconSparkles, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import { describeError } from '../../../api/errors';
import { PageHeader } from '../../../components/PageHeader';
import { MY_VOICES_KEY, saveVoice, type MixEntry } from '../../../design/api';
import { baseVoice, defaultLanguage, mixPayload, modelsFor, weightPercents } from '../../../design/rules';
import { useLocaleChoice } from '../../../i18n/hooks';
import { notifyError, notifyInfo, notifySuccess } from '../../../lib/notify';
import { queryClient } from '../../../lib/query-client';
import { fetchRandomText, fetchVoice, type Voice } from '../../../speech/api';
import { languageOptions } from '../../../speech/languages';
import { previewPlayer } from '../../../speech/preview-audio';
import { findModel, useTtsConfig } from '../../../speech/useTtsConfig';
import { VoiceBrowser } from '../voices/VoiceBrowser';
import { PreviewButton } from '../voices/PreviewButton';
import { PreviewResults } from './PreviewResults';
import { useDesignPreviews } from './useDesignPreviews';
import { PreviewCost } from './PreviewCost';

interface Slot {
  voice: Voice;
  weight: number;
}

const DEFAULT_WEIGHT = 50;

/** Up to three voices of one mixable model, weighted by sliders; preview the blend, then save it as a voice. */
export function MixPage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const navigate = useNavigate();
  const config = useTtsConfig().data;
  const max = config?.limits.mix_max ?? LIMITS.mixMax;
  const mixable = useMemo(() => modelsFor(config, 'mixing'), [config]);
  const [params] = useSearchParams();
  const first = params.get('voice');
  const [slots, setSlots] = useState<Slot[]>([]);
  const [picking, setPicking] = useState(false);
  const [language, setLanguage] = useState<string | null>(null);
  const [previewText, setPreviewText] = useState('');
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [randomLoading, setRandomLoading] = useState(false);
  const { results, pending, start } = useDesignPreviews();

  // Opened from a voice ("Mix" in the library or the playground): it is the first of the mix.
  const initial = useQuery({
    queryKey: ['voice', first],
    queryFn: ({ signal }) => fetchVoice(first!, signal),
    enabled: !!first,
    staleTime: 5 * 60_000,
    retry: false,
    meta: { silent: true },
  });
  useEffect(() => {
    if (initial.data && slots.length === 0) setSlots([{ voice: initial.data, weight: DEFAULT_WEIGHT }]);
    // Only the first answer seeds the mix.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [initial.data]);

  const model = slots[0]?.voice.model ?? null;
  const languages = useMemo(() => {
    if (slots.length === 0) return [];
    const shared = slots[0]!.voice.languages.filter((l) => slots.every((s) => s.voice.languages.includes(l)));
    return shared.length > 0 ? shared : slots[0]!.voice.languages;
  }, [slots]);
  useEffect(() => {
    if (languages.length > 0 && (!language || !languages.includes(language))) setLanguage(defaultLanguage(languages, ui));
  }, [languages, language, ui]);

  const entries: MixEntry[] = slots.map((s) => ({ voice_id: s.voice.id, weight: s.weight }));
  const percents = weightPercents(entries);
  const base = baseVoice(entries);
  const payload = mixPayload(entries);
  const notMixable = !!model && mixable.length > 0 && !mixable.some((m) => m.model === model);

  const errors = submitted
    ? {
        voices: slots.length === 0 ? t('design.mixVoicesRequired') : null,
        previewText: !previewText.trim() ? t('design.previewTextRequired') : null,
        language: !language ? t('design.languageRequired') : null,
      }
    : { voices: null, previewText: null, language: null };

  const add = (voice: Voice) => {
    previewPlayer.stop();
    setPicking(false);
    if (slots.some((s) => s.voice.id === voice.id)) return;
    if (model && voice.model !== model) {
      notifyInfo(t('design.mixOneModel'));
      return;
    }
    setSlots((prev) => (prev.length >= max ? prev : [...prev, { voice, weight: DEFAULT_WEIGHT }]));
  };

  const random = async () => {
    setRandomLoading(true);
    try {
      const sample = await fetchRandomText(language ?? ui);
      setPreviewText(sample.previewText);
    } catch (error) {
      notifyError(error);
    } finally {
      setRandomLoading(false);
    }
  };

  const preview = () => {
    setSubmitted(true);
    if (!model || slots.length === 0 || !previewText.trim() || !language || pending) return;
    void start({ type: 'mix', language, preview_text: previewText.trim(), mix: payload }, [model]);
  };

  const save = useMutation({
    mutationFn: () => saveVoice({ type: 'mix', name: name.trim(), model: model!, mix: payload }),
    meta: { silent: true },
    onSuccess: (voice) => {
      void queryClient.invalidateQueries({ queryKey: [MY_VOICES_KEY] });
      notifySuccess(t('design.mixSaved', { name: voice.name }));
      navigate(`/app/my-voices?voice=${encodeURIComponent(voice.id)}`);
    },
  });
  const [nameError, setNameError] = useState<string | null>(null);
  const trySave = () => {
    setSubmitted(true);
    if (!name.trim()) setNameError(t('design.nameRequired'));
    if (!name.trim() || !model || slots.length === 0) return;
    save.mutate();
  };

  return (
    <Stack data-testid="mix-page">
      <PageHeader title={t('design.mixTitle')} description={t('design.mixDescription', { max: String(max) })} />
      {config && mixable.length === 0 && (
        <Alert color="orange" variant="light" data-testid="mix-unavailable">
          {t('design.mixUnavailable')}
        </Alert>
      )}
      {notMixable && (
        <Alert color="orange" variant="light" data-testid="mix-not-mixable">
          {t('design.mixNotMixable')}
        </Alert>
      )}
      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" mb="sm">
          <Group gap={6}>
            <Text fw={600}>{t('design.mixVoices')}</Text>
            {model && (
              <Badge variant="outline" color="gray" data-testid="mix-model">
                {findModel(config, model)?.model_name ?? model}
              </Badge>
            )}
          </Group>
          <Text size="xs" c="dimmed">
            {t('design.mixCount', { count: slots.length, max: String(max) })}
          </Text>
        </Group>
        <Stack gap="sm" data-testid="mix-slots">
          {slots.map((slot, i) => (
            <Group key={slot.voice.id} wrap="nowrap" gap="md" data-testid="mix-slot" data-voice-id={slot.voice.id}>
              <PreviewButton voice={slot.voice} />
              <Avatar src={slot.voice.avatar} alt="" radius="xl" size="sm" />
              <Stack gap={0} w={160} style={{ flexShrink: 0 }}>
                <Text size="sm" fw={600} truncate title={slot.voice.name}>
                  {slot.voice.name}
                </Text>
                {slot.voice.id === base && slots.length > 1 && (
                  <Badge size="xs" variant="light" data-testid="mix-base">
                    {t('design.mixBase')}
                  </Badge>
                )}
              </Stack>
              <Slider
                style={{ flex: 1 }}
                min={1}
                max={100}
                value={slot.weight}
                onChange={(weight) => setSlots((prev) => prev.map((s, j) => (j === i ? { ...s, weight } : s)))}
                label={null}
                aria-label={t('design.mixWeight', { name: slot.voice.name })}
                data-testid="mix-weight"
              />
              <Text size="sm" w={44} ta="right" ff="monospace" data-testid="mix-percent">
                {percents[i]}%
              </Text>
              <ActionIcon
                variant="subtle"
                color="red"
                onClick={() => setSlots((prev) => prev.filter((_, j) => j !== i))}
                aria-label={t('design.mixRemove')}
                data-testid="mix-remove"
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          ))}
          {errors.voices && (
            <Text size="sm" c="red.8">
              {errors.voices}
            </Text>
          )}
          <Group>
            <Button
              variant="light"
              leftSection={<IconPlus size={16} />}
              onClick={() => setPicking(true)}
              disabled={slots.length >= max}
              data-testid="mix-add"
            >
              {t('design.mixAdd')}
            </Button>
            {slots.length >= max && (
              <Text size="xs" c="dimmed">
                {t('design.mixFull', { max: String(max) })}
              </Text>
            )}
          </Group>
        </Stack>
      </Paper>
      <Paper withBorder radius="md" p="lg">
        <Stack gap="sm">
          <Select
            label={t('design.language')}
            data={languageOptions(languages, ui)}
            value={language}
            onChange={setLanguage}
            searchable
            error={errors.language}
            withAsterisk
            disabled={slots.length === 0}
            data-testid="mix-language"
            comboboxProps={{ withinPortal: true }}
          />
          <Group justify="space-between" align="flex-end">
            <Text size="sm" fw={500}>
              {t('design.previewText')}
            </Text>
            <Button
              variant="subtle"
              size="compact-sm"
              leftSection={<IconArrowsShuffle size={14} />}
              onClick={() => void random()}
              loading={randomLoading}
              data-testid="mix-random"
            >
              {t('design.randomText')}
            </Button>
          </Group>
          <Textarea
            autosize
            minRows={2}
            maxRows={6}
            placeholder={t('design.previewTextPlaceholder')}
            value={previewText}
            onChange={(e) => setPreviewText(e.currentTarget.value)}
            error={errors.previewText}
            aria-label={t('design.previewText')}
            data-testid="mix-preview-text"
          />
          <PreviewCost
            body={
              model && slots.length > 0 && previewText.trim() && language
                ? { type: 'mix', model, language, preview_text: previewText.trim(), mix: payload }
                : null
            }
          />
          <Group justify="flex-end">
            <Button loading={pending} onClick={preview} leftSection={<IconSparkles size={16} />} data-testid="mix-preview">
              {t('textToVoice.generate')}
            </Button>
          </Group>
        </Stack>
      </Paper>
      <PreviewResults results={results} />
      <Paper withBorder radius="md" p="lg">
        <Group align="flex-start" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            label={t('design.name')}
            placeholder={t('design.namePlaceholder')}
            maxLength={LIMITS.nameMaxLength}
            value={name}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setNameError(null);
            }}
            error={nameError}
            withAsterisk
            data-testid="mix-name"
          />
          <Button
            mt={25}
            onClick={trySave}
            loading={save.isPending}
            disabled={slots.length === 0}
            leftSection={<IconDeviceFloppy size={16} />}
            data-testid="mix-save"
          >
            {t('design.mixSave')}
          </Button>
        </Group>
        {save.isError && (
          <Alert mt="sm" color="red" variant="light" data-testid="mix-error">
            {describeError(save.error, ui, t('errors.network'))}
          </Alert>
        )}
      </Paper>
      <Modal
        opened={picking}
        onClose={() => {
          previewPlayer.stop();
          setPicking(false);
        }}
        title={t('design.mixPick')}
        size={920}
        centered
      >
        {picking && <MixPicker model={model} onSelect={add} chosen={slots.map((s) => s.voice.id)} />}
      </Modal>
    </Stack>
  );
}

function MixPicker({ model, onSelect, chosen }: { model: string | null; onSelect: (v: Voice) => void; chosen: string[] }) {
  const { t } = useTranslation();
  const [filters, setFilters] = useState(model ? { model } : {});
  const [page, setPage] = useState(1);
  // The library's mixable voices, or the account's own voices of a mixable model (saved mixes, designed voices).
  const [source, setSource] = useState<'official' | 'mine'>('official');
  return (
    <Stack gap="sm" data-testid="mix-picker">
      <SegmentedControl
        value={source}
        onChange={(v) => {
          setSource(v === 'mine' ? 'mine' : 'official');
          setPage(1);
        }}
        data={[
          { value: 'official', label: t('design.mixFromLibrary') },
          { value: 'mine', label: t('design.mixFromMine') },
        ]}
        data-testid="mix-source"
      />
      <VoiceBrowser
        filters={filters}
        page={page}
        pageSize={10}
        extraQuery={{ mix: 'true', source }}
        onChange={(next, nextPage) => {
          setFilters(next);
          setPage(nextPage);
        }}
        action={(voice) => (
          <Button
            size="xs"
            variant="light"
            disabled={chosen.includes(voice.id)}
            onClick={() => onSelect(voice)}
            data-testid="mix-pick"
          >
            {t('voicePicker.select')}
          </Button>
        )}
      />
    </Stack>
  );
}
