import { useEffect, useRef } from 'react';
import { Anchor, Button, Divider, Group, Loader, Stack, Text } from '@mantine/core';
import { IconPlayerStopFilled, IconSparkles } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { useLocaleChoice } from '../../../i18n/hooks';
import { CLICK_GUARD_MS, ClickGuard } from '../../../lib/click-guard';
import { formatNumber } from '../../../lib/format';

interface Props {
  /** The estimate for the current text, null when there is nothing to price yet. */
  credits: number | null;
  estimating: boolean;
  /** The text is longer than the limit: the hint says so instead of asking for text. */
  over: boolean;
  /** The SSML document is refused: the hint asks for it to be fixed, not for a text and a voice. */
  invalid: boolean;
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
export function CostBar({
  credits,
  estimating,
  over,
  invalid,
  balance,
  canGenerate,
  busy,
  jobRunning,
  asJob,
  onGenerate,
  onStop,
}: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const short = credits !== null && balance !== undefined && credits > balance;
  const stoppable = busy && !jobRunning;
  const generateGuard = useRef(new ClickGuard(CLICK_GUARD_MS));
  const stopGuard = useRef(new ClickGuard(CLICK_GUARD_MS));
  // A Stop that has just appeared ignores a click meant for before. Generate needs no such hold: Stop
  // never sits in its place, and the second press of a double click falls within the window of the
  // first accepted press however quickly the generation came back; a hold here would swallow a
  // deliberate click made just after a short generation finished.
  useEffect(() => {
    if (busy) stopGuard.current.hold(Date.now());
  }, [busy]);
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
                <Text
                  size="sm"
                  c="dimmed"
                  data-testid="playground-estimate"
                  data-credits=""
                  data-state={over ? 'over' : invalid ? 'invalid' : 'empty'}
                >
                  {t(over ? 'playground.estimateTooLong' : invalid ? 'playground.estimateInvalid' : 'playground.estimateHint')}
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
        <Group gap="sm" wrap="nowrap" justify="flex-end">
          {/* Stop has its own place, kept even while hidden, so it never appears under a click aimed at Generate. */}
          <Button
            color="red"
            variant="light"
            leftSection={<IconPlayerStopFilled size={16} />}
            onClick={() => {
              if (stopGuard.current.accept(Date.now())) onStop();
            }}
            style={{ visibility: stoppable ? 'visible' : 'hidden' }}
            aria-hidden={!stoppable}
            tabIndex={stoppable ? 0 : -1}
            data-testid="playground-stop"
            data-visible={stoppable}
          >
            {t('playground.stop')}
          </Button>
          <Button
            leftSection={<IconSparkles size={16} />}
            onClick={() => {
              if (!busy && generateGuard.current.accept(Date.now())) onGenerate();
            }}
            loading={busy}
            disabled={busy || !canGenerate || short}
            data-testid="playground-generate"
            data-state={busy ? 'busy' : 'idle'}
          >
            {busy ? t('playground.generating') : t('playground.generate')}
          </Button>
        </Group>
      </Group>
      {short && (
        <Text size="sm" c="red.8" data-testid="playground-short">
          {errorMessage('INSUFFICIENT_BALANCE', ui)} ·{' '}
          <Anchor component={Link} to="/app/pricing" size="sm">
            {t('playground.buyCredits')}
          </Anchor>
        </Text>
      )}
      {/* Over the limit nothing runs, in the background or not: the limit's message says what to do instead. */}
      {asJob && !over && (
        <Text size="xs" c="dimmed" data-testid="playground-job-notice">
          {t('playground.jobNotice')}
        </Text>
      )}
    </Stack>
  );
}
