import { Button, Group, Stack } from '@mantine/core';
import { IconMicrophone, IconSparkles, IconUserCircle } from '@tabler/icons-react';
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
