import { Alert, Button, Group, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../auth/hooks';
import { session } from '../auth/session';

/** The session could not be set up (server unreachable): say so and offer a retry. */
export function SessionBanner() {
  const { t } = useTranslation();
  const { status } = useSession();
  if (status !== 'failed') return null;
  return (
    <Alert
      color="red"
      radius={0}
      icon={<IconPlugConnectedX size={18} />}
      title={t('session.offlineTitle')}
      data-testid="session-failed"
    >
      <Group justify="space-between">
        <Text size="sm">{t('session.offlineBody')}</Text>
        <Button size="xs" variant="white" color="red" onClick={() => void session.start()}>
          {t('session.retry')}
        </Button>
      </Group>
    </Alert>
  );
}
