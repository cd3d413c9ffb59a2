import { Button, Checkbox, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ComingSoon } from '../../components/ComingSoon';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export function VoiceCloningPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="voice-cloning-page">
      <PageHeader title={t('voiceCloning.title')} description={t('voiceCloning.description')} />
      <Paper radius="md" p="xl" style={{ border: '2px dashed var(--mantine-color-gray-4)' }}>
        <Stack align="center" gap="xs">
          <ThemeIcon size={48} radius="xl" variant="light" color="violet">
            <IconUpload size={24} />
          </ThemeIcon>
          <Text fw={600}>{t('voiceCloning.dropTitle')}</Text>
          <Text size="sm" c="dimmed">
            {t('voiceCloning.dropBody')}
          </Text>
          <Checkbox label={t('voiceCloning.consent')} disabled mt="xs" />
          <ComingSoon>
            <Button disabled mt="xs">
              {t('voiceCloning.dropTitle')}
            </Button>
          </ComingSoon>
        </Stack>
      </Paper>
      <EmptyState title={t('voiceCloning.emptyTitle')} body={t('voiceCloning.emptyBody')} />
    </Stack>
  );
}
