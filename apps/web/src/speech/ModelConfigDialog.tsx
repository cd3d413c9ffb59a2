import { Button, Group, Modal, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useTtsConfig } from './useTtsConfig';

/** Shown by ModelConfigGate once every automatic retry has failed: the user retries by hand. */
export function ModelConfigDialog() {
  const { t } = useTranslation();
  const config = useTtsConfig();
  return (
    <Modal
      opened
      onClose={() => void config.refetch()}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      centered
      title={t('modelConfig.failedTitle')}
    >
      <div data-testid="config-retry-dialog">
        <Text size="sm" c="dimmed">
          {t('modelConfig.failedBody')}
        </Text>
        <Group justify="flex-end" mt="lg">
          <Button leftSection={<IconRefresh size={16} />} onClick={() => void config.refetch()} data-testid="config-retry">
            {t('common.retry')}
          </Button>
        </Group>
      </div>
    </Modal>
  );
}
