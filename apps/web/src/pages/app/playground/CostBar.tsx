import { Anchor, Button, Divider, Group, Loader, Stack, Text } from '@mantine/core';
import { IconPlayerStopFilled, IconSparkles } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';

interface Props {
  /** The estimate for the current text, null when there is nothing to price yet. */
  credits: number | null;
  estimating: boolean;
  balance: number | undefined;
  canGenerate: boolean;
  busy: boolean;
  /** A job is running: it cannot be cancelled on the server, so it offers no Stop. */
  jobRunning: boolean;
  asJob: boolean;
  onGenerate: () => void;
  onStop: () => void;
}

/** The price before generating, the balance, and Generate / Stop. */
export function CostBar({ credits, estimating, balance, canGenerate, busy, jobRunning, asJob, onGenerate, onStop }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const short = credits !== null && balance !== undefined && credits > balance;
  return (
    <Stack gap="xs" mt="md">
      <Divider />
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="lg" wrap="wrap">
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              {t('playground.estimate')}
            </Text>
            <Group gap={6} mih={24}>
              {credits === null && !estimating ? (
                <Text size="sm" c="dimmed" data-testid="playground-estimate" data-credits="">
                  {t('playground.estimateHint')}
                </Text>
              ) : (
                <Text
                  fw={600}
                  c={short ? 'red' : undefined}
                  data-testid="playground-estimate"
                  data-credits={credits ?? ''}
                  data-state={estimating ? 'estimating' : 'ready'}
                >
                  {credits === null
                    ? t('playground.estimating')
                    : t('playground.credits', { credits: formatNumber(credits, ui) })}
                </Text>
              )}
              {estimating && <Loader size={12} />}
            </Group>
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              {t('playground.balance')}
            </Text>
            <Text fw={600} mih={24} data-testid="playground-balance" data-credits={balance ?? ''}>
              {balance === undefined ? '…' : t('playground.credits', { credits: formatNumber(balance, ui) })}
            </Text>
          </Stack>
        </Group>
        {jobRunning ? (
          <Button loading leftSection={<IconSparkles size={16} />} data-testid="playground-generate">
            {t('playground.generate')}
          </Button>
        ) : busy ? (
          <Button
            color="red"
            variant="light"
            leftSection={<IconPlayerStopFilled size={16} />}
            onClick={onStop}
            data-testid="playground-stop"
          >
            {t('playground.stop')}
          </Button>
        ) : (
          <Button
            leftSection={<IconSparkles size={16} />}
            onClick={onGenerate}
            disabled={!canGenerate || short}
            data-testid="playground-generate"
          >
            {t('playground.generate')}
          </Button>
        )}
      </Group>
      {short && (
        <Text size="sm" c="red" data-testid="playground-short">
          {errorMessage('INSUFFICIENT_BALANCE', ui)} ·{' '}
          <Anchor component={Link} to="/app/pricing" size="sm">
            {t('playground.buyCredits')}
          </Anchor>
        </Text>
      )}
      {asJob && (
        <Text size="xs" c="dimmed" data-testid="playground-job-notice">
          {t('playground.jobNotice')}
        </Text>
      )}
    </Stack>
  );
}
