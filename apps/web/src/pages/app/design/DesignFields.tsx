import { useMemo, useState } from 'react';
import { Button, Group, MultiSelect, Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { IconArrowsShuffle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import type { DesignField, DesignForm } from '../../../design/rules';
import { AB_MAX } from '../../../design/rules';
import { useLocaleChoice } from '../../../i18n/hooks';
import { notifyError } from '../../../lib/notify';
import { fetchRandomText, type ModelInfo } from '../../../speech/api';
import { languageOptions } from '../../../speech/languages';

interface Props {
  value: DesignForm;
  onChange: (patch: Partial<DesignForm>) => void;
  errors: Partial<Record<DesignField, string>>;
  models: ModelInfo[];
  languages: string[];
  /** The random text also fills an empty prompt (text to voice). */
  withPrompt?: boolean;
  disabled?: boolean;
}

/** Preview text (with a random text in the chosen language), models for A/B, language and name. */
export function DesignFields({ value, onChange, errors, models, languages, withPrompt, disabled }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [loadingRandom, setLoadingRandom] = useState(false);
  const modelData = useMemo(() => models.map((m) => ({ value: m.model, label: m.model_name })), [models]);
  const languageData = useMemo(() => languageOptions(languages, ui), [languages, ui]);

  const random = async () => {
    setLoadingRandom(true);
    try {
      const sample = await fetchRandomText(value.language ?? ui);
      onChange({
        previewText: sample.previewText,
        ...(withPrompt && !value.prompt.trim() ? { prompt: sample.prompt } : {}),
        ...(!value.name.trim() ? { name: sample.name.slice(0, LIMITS.nameMaxLength) } : {}),
      });
    } catch (error) {
      notifyError(error);
    } finally {
      setLoadingRandom(false);
    }
  };

  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <MultiSelect
          label={t('design.models')}
          description={t('design.modelsHint', { max: String(AB_MAX) })}
          placeholder={value.models.length === 0 ? t('design.modelsPlaceholder') : undefined}
          data={modelData}
          value={value.models}
          onChange={(next) => onChange({ models: next.slice(0, AB_MAX) })}
          maxValues={AB_MAX}
          searchable
          error={errors.models}
          withAsterisk
          disabled={disabled}
          data-testid="design-models"
          comboboxProps={{ withinPortal: true }}
        />
        <Select
          label={t('design.language')}
          description={t('design.languageHint')}
          placeholder={t('design.languagePlaceholder')}
          data={languageData}
          value={value.language}
          onChange={(language) => onChange({ language })}
          searchable
          limit={200}
          error={errors.language}
          withAsterisk
          disabled={disabled}
          data-testid="design-language"
          comboboxProps={{ withinPortal: true }}
        />
      </SimpleGrid>
      <Stack gap={4}>
        <Group justify="space-between" align="flex-end">
          <label htmlFor="design-preview-text" style={{ fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 }}>
            {t('design.previewText')} <span style={{ color: 'var(--mantine-color-error)' }}>*</span>
          </label>
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconArrowsShuffle size={14} />}
            onClick={() => void random()}
            loading={loadingRandom}
            disabled={disabled}
            data-testid="design-random"
          >
            {t('design.randomText')}
          </Button>
        </Group>
        <Textarea
          id="design-preview-text"
          placeholder={t('design.previewTextPlaceholder')}
          autosize
          minRows={2}
          maxRows={6}
          value={value.previewText}
          onChange={(e) => onChange({ previewText: e.currentTarget.value })}
          error={errors.previewText}
          disabled={disabled}
          data-testid="design-preview-text"
        />
      </Stack>
      <TextInput
        label={t('design.name')}
        placeholder={t('design.namePlaceholder')}
        maxLength={LIMITS.nameMaxLength}
        value={value.name}
        onChange={(e) => onChange({ name: e.currentTarget.value })}
        error={errors.name}
        withAsterisk
        disabled={disabled}
        data-testid="design-name"
      />
    </Stack>
  );
}
