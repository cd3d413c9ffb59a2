import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { defaultLanguage, languagesOf, missingFields, modelsFor, type DesignField, type DesignForm } from '../../../design/rules';
import type { PreviewType } from '../../../design/types';
import { useLocaleChoice } from '../../../i18n/hooks';
import { useTtsConfig } from '../../../speech/useTtsConfig';

const EMPTY: DesignForm = { prompt: '', previewText: '', models: [], language: null, name: '' };

/**
 * The text-to-voice and cloning forms' state: the first suitable model and the UI's language
 * chosen to start with; the required-field messages appear once a preview was asked for, and
 * follow the fields from then on.
 */
export function useDesignForm(kind: Exclude<PreviewType, 'mix'>) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  const models = useMemo(() => modelsFor(config, kind), [config, kind]);
  const [form, setForm] = useState<DesignForm>(EMPTY);
  const [submitted, setSubmitted] = useState(false);
  const languages = useMemo(() => languagesOf(config, form.models), [config, form.models]);

  // The first model once the models are known (they may come after the page): once, so a user
  // who clears the field is not overruled.
  const defaulted = useRef(false);
  useEffect(() => {
    if (defaulted.current || models.length === 0) return;
    defaulted.current = true;
    setForm((f) => (f.models.length === 0 ? { ...f, models: [models[0]!.model] } : f));
  }, [models]);
  // Keep the language one the chosen models speak.
  useEffect(() => {
    if (languages.length === 0) return;
    if (!form.language || !languages.includes(form.language))
      setForm((f) => ({ ...f, language: defaultLanguage(languages, ui) }));
  }, [languages, form.language, ui]);

  const missing = missingFields(form, kind);
  const messages: Record<DesignField, string> = {
    prompt: t('design.promptRequired'),
    previewText: t('design.previewTextRequired'),
    models: t('design.modelsRequired'),
    language: t('design.languageRequired'),
    name: t('design.nameRequired'),
  };
  const errors: Partial<Record<DesignField, string>> = submitted ? Object.fromEntries(missing.map((f) => [f, messages[f]])) : {};

  return {
    form,
    models,
    languages,
    errors,
    update: (patch: Partial<DesignForm>) => setForm((f) => ({ ...f, ...patch })),
    /** Marks the form as submitted; true when nothing required is missing. */
    validate: () => {
      setSubmitted(true);
      return missing.length === 0;
    },
  };
}
