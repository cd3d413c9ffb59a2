import { useEffect, useMemo, useState } from 'react';
import { Button, Checkbox, Group, Select, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconFilterOff, IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import { GENDER_VALUES, type Gender, type TtsConfig } from '../../../speech/api';
import { languageOptions } from '../../../speech/languages';
import { normalizeFilters, type VoiceFilters as Filters } from '../../../speech/voice-query';

interface Props {
  value: Filters;
  onChange: (next: Filters) => void;
  config: TtsConfig | undefined;
}

const NAME_DEBOUNCE_MS = 300;

/** Model, language, gender, neural voices only, and a name search; the name is sent once typing pauses. */
export function VoiceFilters({ value, onChange, config }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [name, setName] = useState(value.name ?? '');
  const sendName = useDebouncedCallback((next: string) => onChange(normalizeFilters({ ...value, name: next })), NAME_DEBOUNCE_MS);

  // Follow the name from outside (clear filters, back/forward).
  useEffect(() => setName(value.name ?? ''), [value.name]);

  const models = useMemo(() => (config?.models ?? []).map((m) => ({ value: m.model, label: m.model_name })), [config]);
  const languages = useMemo(() => {
    const pool = (config?.models ?? []).filter((m) => !value.model || m.model === value.model);
    return languageOptions(
      pool.flatMap((m) => m.languages),
      ui,
    );
  }, [config, value.model, ui]);
  const genders = useMemo(() => {
    const pool = (config?.models ?? []).filter((m) => !value.model || m.model === value.model);
    const known = new Set(pool.flatMap((m) => m.sexs.map((s) => s.sex)));
    return GENDER_VALUES.filter((g) => known.size === 0 || known.has(g)).map((g) => ({ value: g, label: t(`genders.${g}`) }));
  }, [config, value.model, t]);

  const set = (patch: Partial<Filters>) => onChange(normalizeFilters({ ...value, ...patch, name }));
  const active = Object.keys(normalizeFilters(value)).length > 0;

  return (
    <Group gap="sm" align="flex-end" wrap="wrap" data-testid="voice-filters">
      <TextInput
        label={t('voices.search')}
        placeholder={t('voices.search')}
        leftSection={<IconSearch size={16} />}
        value={name}
        onChange={(e) => {
          setName(e.currentTarget.value);
          sendName(e.currentTarget.value);
        }}
        w={200}
        data-testid="filter-name"
      />
      <Select
        label={t('voices.model')}
        placeholder={t('voices.allModels')}
        data={models}
        value={value.model ?? null}
        onChange={(model) => set({ model: model ?? undefined, language: undefined })}
        clearable
        w={170}
        data-testid="filter-model"
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label={t('voices.language')}
        placeholder={t('voices.allLanguages')}
        data={languages}
        value={value.language ?? null}
        onChange={(language) => set({ language: language ?? undefined })}
        searchable
        selectFirstOptionOnChange
        clearable
        limit={200}
        w={230}
        data-testid="filter-language"
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label={t('voices.gender')}
        placeholder={t('voices.allGenders')}
        data={genders}
        value={value.gender ?? null}
        onChange={(gender) => set({ gender: (gender as Gender | null) ?? undefined })}
        clearable
        w={150}
        data-testid="filter-gender"
        comboboxProps={{ withinPortal: true }}
      />
      <Checkbox
        label={t('voices.neuralOnly')}
        checked={value.neural === true}
        onChange={(e) => set({ neural: e.currentTarget.checked || undefined })}
        mb={8}
        data-testid="filter-neural"
      />
      {active && (
        <Button
          variant="subtle"
          color="gray"
          leftSection={<IconFilterOff size={16} />}
          onClick={() => {
            setName('');
            onChange({});
          }}
          data-testid="filter-clear"
        >
          {t('voices.clearFilters')}
        </Button>
      )}
    </Group>
  );
}
