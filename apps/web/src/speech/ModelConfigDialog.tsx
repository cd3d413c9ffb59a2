import { Button, Group, Modal, Text } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Shown by ModelConfigGate once every automatic retry has failed: the user retries by hand. */
// The retry comes from the gate: a second observer of the config query here would refetch on mount.
export function ModelConfigDialog({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      opened
      onClose={onRetry}
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
          <Button leftSection={<IconRefresh size={16} />} onClick={onRetry} data-testid="config-retry">
            {t('common.retry')}
          </Button>
        </Group>
      </div>
    </Modal>
  );
}
