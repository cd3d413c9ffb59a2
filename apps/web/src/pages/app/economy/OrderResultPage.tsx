import { useEffect, useState } from 'react';
import { Button, Group, Loader, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleX, IconClockX, IconSearch } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useAccount } from '../../../auth/hooks';
import { ME_KEY } from '../../../auth/session-controller';
import { useLocaleChoice } from '../../../i18n/hooks';
import { useDocumentTitle } from '../../../lib/document-title';
import { formatNumber } from '../../../lib/format';
import { isFinal } from '../../../economy/checkout';
import { formatMoney } from '../../../economy/money';
import { CheckoutDialog } from '../../../economy/CheckoutDialog';
import { ECONOMY_KEY, orderGone, useOrder, useProducts } from '../../../economy/queries';
import type { Order } from '../../../api/economy';

const LOOK = {
  successful: { color: 'teal', icon: IconCircleCheck },
  failed: { color: 'red', icon: IconCircleX },
  expired: { color: 'gray', icon: IconClockX },
} as const;

/**
 * An order still awaiting payment (its tab was closed, or the buyer came from the orders page) is paid from here;
 * after a failed or expired one, the same product is bought again with a new order (a final order cannot be paid).
 * A product no longer sold leads to pricing instead.
 */
function PayAgain({ order, label, testId }: { order: Order; label: string; testId: string }) {
  const kind = order.product_kind === 'credits' ? 'credits' : 'plan';
  const products = useProducts(kind);
  const product = products.data?.items.find((p) => p.id === order.product);
  const [open, setOpen] = useState(false);
  const payable = order.status === 'pending_payment';
  if (!product) {
    if (payable || products.isPending) return null;
    return (
      <Button component={Link} to={`/app/pricing?kind=${kind}`} data-testid={testId}>
        {label}
      </Button>
    );
  }
  return (
    <>
      <Button variant={payable ? 'light' : 'filled'} onClick={() => setOpen(true)} data-testid={testId}>
        {label}
      </Button>
      {open && (
        <CheckoutDialog
          product={product}
          order={payable ? order : undefined}
          listed={products.data?.payment_methods}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}

/**
 * Where a payment provider sends the buyer back (`return_url`): follows the order until it is final,
 * then shows how it ended and the balance, fetched again once the order is settled.
 */
export function OrderResultPage() {
  const { t } = useTranslation();
  useDocumentTitle(t('checkout.resultTitle'));
  const { ui } = useLocaleChoice();
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const { account } = useAccount();
  const order = useOrder(id);
  const data = order.data;
  const final = isFinal(data);

  useEffect(() => {
    if (!final) return;
    void queryClient.invalidateQueries({ queryKey: ME_KEY });
    void queryClient.invalidateQueries({ queryKey: [ECONOMY_KEY], predicate: (q) => q.queryKey[1] !== 'order' });
  }, [final, queryClient]);

  // A poll that failed for a moment keeps the page following the order (the next one may answer).
  if (order.isError && (!data || orderGone(order.error))) {
    return (
      <Paper withBorder radius="md" p="xl" data-testid="order-result" data-status="missing">
        <Stack align="center" gap="sm">
          <ThemeIcon size={56} radius="xl" variant="light" color="gray">
            <IconSearch size={30} />
          </ThemeIcon>
          <Title order={1} size="h3">
            {t('checkout.notFoundTitle')}
          </Title>
          <Text c="dimmed">{t('checkout.notFoundBody')}</Text>
          <Button component={Link} to="/app/orders" variant="light">
            {t('checkout.viewOrders')}
          </Button>
        </Stack>
      </Paper>
    );
  }

  if (!data || !final) {
    return (
      <Paper withBorder radius="md" p="xl" data-testid="order-result" data-status="pending_payment">
        <Stack align="center" gap="sm">
          <Loader />
          <Title order={1} size="h3">
            {t('checkout.resultTitle')}
          </Title>
          <Text c="dimmed">{t('checkout.pending')}</Text>
          <Text size="sm" c="dimmed">
            {t('checkout.processing')}
          </Text>
          {data && <PayAgain order={data} label={t('checkout.payNow')} testId="order-pay" />}
        </Stack>
      </Paper>
    );
  }

  const status = Object.hasOwn(LOOK, data.status) ? (data.status as keyof typeof LOOK) : 'failed';
  const { color, icon: Icon } = LOOK[status];
  return (
    <Paper withBorder radius="md" p="xl" data-testid="order-result" data-status={data.status}>
      <Stack align="center" gap="sm">
        <ThemeIcon size={56} radius="xl" variant="light" color={color}>
          <Icon size={30} />
        </ThemeIcon>
        <Title order={1} size="h3" data-testid="order-result-title">
          {t(`checkout.${status}Title`)}
        </Title>
        <Text c="dimmed" ta="center">
          {status === 'successful' && typeof data.credits !== 'number'
            ? t('checkout.successfulPlain')
            : t(`checkout.${status}Body`, { credits: formatNumber(data.credits ?? 0, ui) })}
        </Text>
        <Text size="sm" c="dimmed">
          {t('checkout.order', { id: data.id })} · {formatMoney({ amount: data.amount, currency: data.currency }, ui)}
        </Text>
        {account && (
          <Group gap="xs">
            <Text>{t('checkout.balance')}</Text>
            <Text fw={700} fz="xl" data-testid="order-result-balance">
              {formatNumber(account.vip.credits, ui)}
            </Text>
          </Group>
        )}
        <Group mt="sm" justify="center">
          {status !== 'successful' && (
            <PayAgain
              order={data}
              label={t(status === 'failed' ? 'checkout.retry' : 'checkout.orderAgain')}
              testId="order-result-retry"
            />
          )}
          <Button component={Link} to="/app/orders" variant="light" data-testid="order-result-orders">
            {t('checkout.viewOrders')}
          </Button>
          <Button component={Link} to="/app/pricing" variant="default">
            {t('checkout.backToPricing')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
