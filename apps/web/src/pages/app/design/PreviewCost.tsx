import { useEffect, useState } from 'react';
import { Alert, Anchor, Group, Loader, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import { useAccount } from '../../../auth/hooks';
import { estimatePreview, type PreviewBody, type PreviewEstimate } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';

/**
 * The server's price of the previews the form would make, before "Generate previews": what they will
 * charge (the estimate is the charge), the activation fee of saving one as a voice, and, when the
 * plan has no room for another own voice, that saving one needs a plan. Refreshed as the form changes.
 */
export function usePreviewEstimate(body: PreviewBody | null) {
  const key = body ? JSON.stringify(body) : null;
  const [state, setState] = useState<{ key: string | null; estimate?: PreviewEstimate; error?: unknown }>({ key: null });
  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      estimatePreview(JSON.parse(key) as PreviewBody, controller.signal).then(
        (estimate) => setState({ key, estimate }),
        (error: unknown) => {
          if (!controller.signal.aborted) setState({ key, error });
        },
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key]);
  if (!key) return { estimate: undefined, error: undefined, loading: false };
  const current = state.key === key;
  return { estimate: current ? state.estimate : undefined, error: current ? state.error : undefined, loading: !current };
}

export function PreviewCost({ body, saves = true }: { body: PreviewBody | null; saves?: boolean }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const { estimate, error, loading } = usePreviewEstimate(body);
  const balance = account?.vip.credits;
  const short = estimate && balance !== undefined && estimate.credits > balance;
  const full = estimate && saves && estimate.own_voices.used >= estimate.own_voices.limit;
  const n = (v: number) => formatNumber(v, ui);
  return (
    <Stack
      gap={6}
      data-testid="design-estimate"
      data-credits={estimate?.credits ?? ''}
      data-state={body ? (estimate ? 'ready' : error ? 'error' : 'loading') : 'empty'}
    >
      <Group gap="xs" wrap="wrap">
        <Text size="sm" c="dimmed">
          {t('design.estimateTitle')}
        </Text>
        {!body ? (
          <Text size="sm" c="dimmed">
            {t('design.estimateHint')}
          </Text>
        ) : loading && !estimate ? (
          <Loader size="xs" />
        ) : error ? (
          <Text size="sm" c="red" data-testid="design-estimate-error">
            {describeError(error, ui, t('errors.network'))}
          </Text>
        ) : estimate ? (
          <Text size="sm" fw={600} c={short ? 'red' : undefined} data-testid="design-estimate-credits">
            {t('design.estimateCredits', { credits: n(estimate.credits), count: estimate.items.length })}
          </Text>
        ) : null}
      </Group>
      {estimate && estimate.items.length > 1 && (
        <Text size="xs" c="dimmed" data-testid="design-estimate-items">
          {estimate.items.map((i) => t('design.estimateItem', { model: i.model, credits: n(i.credits) })).join(' · ')}
        </Text>
      )}
      {estimate && saves && estimate.activation_credits > 0 && (
        <Text size="xs" c="dimmed" data-testid="design-estimate-activation" data-credits={estimate.activation_credits}>
          {t('design.estimateActivation', { credits: n(estimate.activation_credits) })}
        </Text>
      )}
      {short && (
        <Text size="xs" c="red" data-testid="design-estimate-short">
          {t('design.estimateShort', { balance: n(balance!) })}
        </Text>
      )}
      {full && (
        <Alert color="orange" variant="light" p="xs" icon={<IconAlertTriangle size={16} />} data-testid="design-estimate-plan">
          <Text size="xs">
            {t('design.estimateNeedsPlan', { limit: n(estimate.own_voices.limit), used: n(estimate.own_voices.used) })}{' '}
            <Anchor component={Link} to="/app/pricing" size="xs">
              {t('design.estimatePlans')}
            </Anchor>
          </Text>
        </Alert>
      )}
    </Stack>
  );
}
