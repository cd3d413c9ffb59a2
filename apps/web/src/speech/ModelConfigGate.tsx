import { Button, Group, Modal, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useTtsConfig } from './useTtsConfig';

/**
 * Loads the model configuration as soon as the session is up, and asks the user to retry once
 * the automatic retries (3, 8, 15 s) have all failed.
 */
export function ModelConfigGate() {
  const { t } = useTranslation();
  const config = useTtsConfig();
  const failed = config.isError && !config.isFetching;
  return (
    <Modal
      opened={failed}
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
