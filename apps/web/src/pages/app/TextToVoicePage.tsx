import { useState } from 'react';
import { Button, Group, Paper, Stack, Textarea } from '@mantine/core';
import { IconSparkles } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { ActivateDialog, type ActivationTarget } from './design/ActivateDialog';
import { DesignFields } from './design/DesignFields';
import { PreviewHistory } from './design/PreviewHistory';
import { PreviewResults } from './design/PreviewResults';
import { useDesignForm } from './design/useDesignForm';
import { useDesignPreviews } from './design/useDesignPreviews';
import { PreviewCost } from './design/PreviewCost';

/** Describe a voice, hear it on up to three models side by side, and activate the version to keep. */
export function TextToVoicePage() {
  const { t } = useTranslation();
  const { form, models, languages, errors, update, validate } = useDesignForm('prompt');
  const { results, pending, start } = useDesignPreviews();
  const [target, setTarget] = useState<ActivationTarget | null>(null);

  const generate = () => {
    if (!validate() || pending) return;
    void start(
      { type: 'prompt', language: form.language!, preview_text: form.previewText.trim(), prompt: form.prompt.trim() },
      form.models,
    );
  };

  return (
    <Stack data-testid="text-to-voice-page">
      <PageHeader title={t('textToVoice.title')} description={t('textToVoice.description')} />
      <Paper withBorder radius="md" p="lg">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            generate();
          }}
          noValidate
        >
          <Stack gap="sm">
            <Textarea
              label={t('textToVoice.prompt')}
              description={t('design.promptHint')}
              placeholder={t('textToVoice.promptPlaceholder')}
              autosize
              minRows={3}
              maxRows={8}
              value={form.prompt}
              onChange={(e) => update({ prompt: e.currentTarget.value })}
              error={errors.prompt}
              withAsterisk
              data-testid="ttv-prompt"
            />
            <DesignFields value={form} onChange={update} errors={errors} models={models} languages={languages} withPrompt />
            <PreviewCost
              body={
                form.prompt.trim() && form.previewText.trim() && form.language && form.models.length
                  ? {
                      type: 'prompt',
                      language: form.language,
                      preview_text: form.previewText.trim(),
                      prompt: form.prompt.trim(),
                      model: form.models[0]!,
                      ...(form.models.length > 1 ? { models: form.models } : {}),
                    }
                  : null
              }
            />
            <Group justify="flex-end">
              <Button type="submit" loading={pending} leftSection={<IconSparkles size={16} />} data-testid="design-generate">
                {t('textToVoice.generate')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <PreviewResults
        results={results}
        onActivate={(preview) => setTarget({ preview, type: 'prompt', name: form.name.trim() })}
      />
      <PreviewHistory type="prompt" onActivate={(preview) => setTarget({ preview, type: 'prompt', name: form.name.trim() })} />
      <ActivateDialog target={target} onClose={() => setTarget(null)} />
    </Stack>
  );
}
