import { Button, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../api/errors';
import { useLocaleChoice } from '../i18n/hooks';

interface Props {
  /** The query's error: its server message (or the catalogue's text for its code) is shown under the title. */
  error: unknown;
  onRetry: () => void;
  retrying?: boolean;
  bordered?: boolean;
  /** Names the list in the test id: load-error-<what>. */
  what?: string;
}

/** A list whose request failed: says so, with the reason and a retry, never an empty list's "nothing yet". */
export function LoadError({ error, onRetry, retrying = false, bordered = true, what }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  return (
    <Paper withBorder={bordered} radius="md" p="xl" role="alert" data-testid={what ? `load-error-${what}` : 'load-error'}>
      <Stack align="center" gap="xs" py="lg">
        <ThemeIcon size={48} radius="xl" variant="light" color="red">
          <IconAlertTriangle size={26} />
        </ThemeIcon>
        <Text fw={600} ta="center">
          {t('common.loadFailed')}
        </Text>
        <Text size="sm" c="dimmed" ta="center" maw={460}>
          {describeError(error, ui, t('errors.network'))}
        </Text>
        <Button variant="light" color="red" onClick={onRetry} loading={retrying} data-testid="load-error-retry">
          {t('common.retry')}
        </Button>
      </Stack>
    </Paper>
  );
}
