import { Button, Group, Paper, Stack, Textarea } from '@mantine/core';
import { IconSparkles } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../../components/ComingSoon';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export function TextToVoicePage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="text-to-voice-page">
      <PageHeader title={t('textToVoice.title')} description={t('textToVoice.description')} />
      <Paper withBorder radius="md" p="lg">
        <Textarea label={t('textToVoice.prompt')} placeholder={t('textToVoice.promptPlaceholder')} autosize minRows={3} />
        <Group justify="flex-end" mt="sm">
          <ComingSoon>
            <Button disabled leftSection={<IconSparkles size={16} />}>
              {t('textToVoice.generate')}
            </Button>
          </ComingSoon>
        </Group>
      </Paper>
      <EmptyState title={t('textToVoice.emptyTitle')} body={t('textToVoice.emptyBody')} />
    </Stack>
  );
}
