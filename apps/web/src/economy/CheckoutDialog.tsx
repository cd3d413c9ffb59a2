import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Group, Image, Loader, Modal, Radio, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconExternalLink } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { createOrder, payOrder, type Order, type PaymentMethod, type Product } from '../api/economy';
import { describeError, isApiError } from '../api/errors';
import { useLocaleChoice } from '../i18n/hooks';
import { notifyError } from '../lib/notify';
import { isFinal, isSafePayUrl, offeredMethods, openCheckoutWindow, returnUrl } from './checkout';
import { currencyFor, formatMoney, priceIn } from './money';
import { QrCode } from './QrCode';
import { useOrder, usePaymentMethods } from './queries';

type Phase =
  | { kind: 'choose' }
  | { kind: 'processing' }
  | { kind: 'waiting'; orderId: string; payUrl: string }
  | { kind: 'blocked'; orderId: string; payUrl: string }
  | { kind: 'qr'; orderId: string; qr: string };

/** Codes whose message the dialog shows in place (the buyer can pick another method and try again). */
const INLINE = new Set(['PAYMENT_METHOD_UNAVAILABLE', 'ORDER_NOT_PAYABLE']);

function isImage(qr: string): boolean {
  return /^data:image\/(png|svg\+xml|jpeg|gif);/.test(qr) || /^https?:\/\/.+\.(png|svg|jpe?g|gif)(\?|$)/i.test(qr);
}

/**
 * Buying one product: choose among the methods the server configured, then the order is created and
 * its payment page opens in a new tab (opened during the click, so no popup blocker stops it; if one
 * does, a link). The dialog follows the order and goes to its result page once it is final.
 */
export function CheckoutDialog({
  product,
  order: existing,
  listed,
  onClose,
}: {
  product: Product;
  /** An order already placed and still awaiting payment: paid rather than a new one placed. */
  order?: Order;
  /** The methods `GET /products` listed, used when `GET /payments/methods` does not answer. */
  listed?: readonly string[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const navigate = useNavigate();
  const methodsQuery = usePaymentMethods(true);
  const fromServer = methodsQuery.data ?? listed ?? product.payment_methods;
  const methods = methodsQuery.isPending ? [] : offeredMethods(fromServer);
  const [method, setMethod] = useState<PaymentMethod | null>(null);
  const chosen = method && methods.includes(method) ? method : (methods[0] ?? null);
  const [phase, setPhase] = useState<Phase>({ kind: 'choose' });
  const [problem, setProblem] = useState<string | null>(null);
  // One order per dialog: trying another method pays the same order rather than placing a second one.
  const orderRef = useRef<Order | null>(existing ?? null);

  const followed = 'orderId' in phase ? phase.orderId : '';
  const order = useOrder(followed);
  const final = followed !== '' && isFinal(order.data);
  useEffect(() => {
    if (final) void navigate(`/app/orders/${encodeURIComponent(followed)}/result`);
  }, [final, followed, navigate]);

  const price = priceIn(product, currencyFor(ui));

  async function pay() {
    if (!chosen) return;
    setProblem(null);
    // Opened now, inside the click: a tab opened after the awaits below would count as a popup.
    const win = chosen === 'wechat' ? null : openCheckoutWindow((url, target) => window.open(url, target));
    setPhase({ kind: 'processing' });
    try {
      const placed = orderRef.current ?? (await createOrder(product.id));
      orderRef.current = placed;
      const answer = await payOrder(placed.id, chosen, returnUrl(placed.id));
      if (answer.qr_code) {
        win?.close();
        setPhase({ kind: 'qr', orderId: placed.id, qr: answer.qr_code });
        return;
      }
      if (!answer.pay_url || !isSafePayUrl(answer.pay_url, window.location.origin)) throw new Error('no usable pay_url');
      const payUrl = new URL(answer.pay_url, window.location.origin).href;
      if (win) {
        win.go(payUrl);
        setPhase({ kind: 'waiting', orderId: placed.id, payUrl });
      } else {
        setPhase({ kind: 'blocked', orderId: placed.id, payUrl });
      }
    } catch (error) {
      win?.close();
      setPhase({ kind: 'choose' });
      if (isApiError(error) && error.code === 'ORDER_NOT_PAYABLE') orderRef.current = null;
      if (isApiError(error) && INLINE.has(error.code)) setProblem(describeError(error, ui, t('errors.network')));
      else notifyError(error);
    }
  }

  return (
    <Modal opened onClose={onClose} title={t('checkout.title')} centered data-testid="checkout-dialog">
      <Stack gap="md">
        <Group justify="space-between">
          <Text c="dimmed">{t('checkout.product')}</Text>
          <Text fw={600}>{product.name}</Text>
        </Group>
        <Group justify="space-between">
          <Text c="dimmed">{t('checkout.amount')}</Text>
          <Text fw={700} data-testid="checkout-amount">
            {formatMoney(price, ui)}
          </Text>
        </Group>

        {(phase.kind === 'choose' || phase.kind === 'processing') && (
          <>
            {methodsQuery.isPending ? (
              <Loader size="sm" />
            ) : methods.length === 0 ? (
              <Alert color="yellow" icon={<IconAlertTriangle size={18} />} data-testid="checkout-no-methods">
                {t('checkout.noMethods')}
              </Alert>
            ) : (
              <Radio.Group
                label={t('checkout.method')}
                value={chosen}
                onChange={(v) => setMethod(v as PaymentMethod)}
                data-testid="checkout-methods"
              >
                <Stack gap="xs" mt="xs">
                  {methods.map((m) => (
                    <Radio
                      key={m}
                      value={m}
                      label={t(`checkout.methods.${m}`)}
                      description={m === 'sandbox' ? t('checkout.sandboxHint') : undefined}
                      disabled={phase.kind === 'processing'}
                      data-testid={`method-${m}`}
                    />
                  ))}
                </Stack>
              </Radio.Group>
            )}
            {problem && (
              <Alert color="red" icon={<IconAlertTriangle size={18} />} data-testid="checkout-problem">
                {problem}
              </Alert>
            )}
            <Button
              onClick={() => void pay()}
              disabled={!chosen}
              loading={phase.kind === 'processing'}
              data-testid="checkout-pay"
            >
              {t('checkout.pay', { price: formatMoney(price, ui) })}
            </Button>
            {phase.kind === 'processing' && (
              <Text size="sm" c="dimmed" ta="center" data-testid="checkout-processing">
                {t('checkout.processing')}
              </Text>
            )}
          </>
        )}

        {(phase.kind === 'waiting' || phase.kind === 'blocked') && (
          <Stack gap="sm" data-testid="checkout-pending" data-phase={phase.kind}>
            {phase.kind === 'blocked' ? (
              <Alert color="yellow" icon={<IconAlertTriangle size={18} />} data-testid="checkout-blocked">
                {t('checkout.popupBlocked')}
              </Alert>
            ) : (
              <Group gap="sm" wrap="nowrap">
                <Loader size="sm" />
                <Text size="sm">{t('checkout.waiting')}</Text>
              </Group>
            )}
            <Anchor href={phase.payUrl} target="_blank" rel="noopener noreferrer" data-testid="checkout-open-link" fw={600}>
              <Group gap={4} component="span">
                {t('checkout.openPayment')}
                <IconExternalLink size={16} />
              </Group>
            </Anchor>
            <Text size="sm" c="dimmed">
              {t('checkout.processing')}
            </Text>
          </Stack>
        )}

        {phase.kind === 'qr' && (
          <Stack gap="sm" align="center" data-testid="checkout-qr">
            <Text fw={600}>{t('checkout.qrTitle')}</Text>
            {isImage(phase.qr) ? (
              <Image src={phase.qr} alt={t('checkout.qrTitle')} w={200} h={200} />
            ) : (
              <QrCode text={phase.qr} label={t('checkout.qrTitle')} />
            )}
            <Text size="sm" c="dimmed" ta="center">
              {t('checkout.qrHint')}
            </Text>
          </Stack>
        )}

        {'orderId' in phase && (
          <Button
            variant="subtle"
            onClick={() => void navigate(`/app/orders/${encodeURIComponent(phase.orderId)}/result`)}
            data-testid="checkout-follow"
          >
            {t('checkout.viewOrder')}
          </Button>
        )}
      </Stack>
    </Modal>
  );
}
