import { Button, Group, Stack, TextInput } from '@mantine/core';
import { IconCpu, IconMicrophone, IconSearch, IconSparkles, IconUserCircle, IconVolume } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';

export function MyVoicesPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="my-voices-page">
      <PageHeader title={t('myVoices.title')} description={t('myVoices.description')} />
      <EmptyState
        icon={<IconUserCircle size={26} />}
        title={t('myVoices.emptyTitle')}
        body={t('myVoices.emptyBody')}
        action={
          <Group mt="sm">
            <Button component={Link} to="/app/text-to-voice" variant="light" leftSection={<IconSparkles size={16} />}>
              {t('nav.textToVoice')}
            </Button>
            <Button component={Link} to="/app/voice-cloning" variant="light" leftSection={<IconMicrophone size={16} />}>
              {t('nav.voiceCloning')}
            </Button>
          </Group>
        }
      />
    </Stack>
  );
}

export function VoicesPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="voices-page">
      <PageHeader title={t('voices.title')} description={t('voices.description')} />
      <TextInput leftSection={<IconSearch size={16} />} placeholder={t('voices.search')} disabled maw={360} />
      <EmptyState icon={<IconVolume size={26} />} title={t('voices.emptyTitle')} body={t('voices.emptyBody')} />
    </Stack>
  );
}

export function ModelsPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="models-page">
      <PageHeader title={t('models.title')} description={t('models.description')} />
      <EmptyState icon={<IconCpu size={26} />} title={t('models.emptyTitle')} body={t('models.emptyBody')} />
    </Stack>
  );
}
