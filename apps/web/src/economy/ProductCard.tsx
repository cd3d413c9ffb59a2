import { Badge, Button, Card, Group, List, Stack, Text } from '@mantine/core';
import { IconCheck, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Product } from '../api/economy';
import { useLocaleChoice } from '../i18n/hooks';
import { formatNumber, planKey } from '../lib/format';
import { currencyFor, formatMoney, priceIn, pricePerThousand } from './money';

function privilege(product: Product, ...keys: string[]): number | null {
  const p = product.privileges;
  if (!p) return null;
  for (const key of keys) {
    if (Object.hasOwn(p, key) && typeof p[key] === 'number') return p[key];
  }
  return null;
}

export function isFreeProduct(product: Product): boolean {
  return product.plan === 'free' || product.price.amount === 0 || product.purchasable === false;
}

/** One plan or credit pack: price in the currency of the interface's language, what it gives, and Buy. */
interface CardProps {
  product: Product;
  onBuy: () => void;
  buyLabel: string;
  /** The account is on this plan now: marked, and its button renews it. */
  current?: { until: string | null } | undefined;
}

export function ProductCard({ product, onBuy, buyLabel, current }: CardProps) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const currency = currencyFor(ui);
  const price = priceIn(product, currency);
  const perK = product.kind === 'credits' ? pricePerThousand(product, currency) : null;
  const free = isFreeProduct(product);
  const plan = product.plan ? planKey(product.plan) : null;
  // A credit pack changes no privilege: only plans list theirs.
  const isPlan = product.kind === 'plan';
  const maxText = isPlan ? privilege(product, 'max_text_length', 'maxTextLength') : null;
  const ownVoices = isPlan ? privilege(product, 'own_voices', 'voices', 'max_voices') : null;
  const apiAccess = isPlan ? product.privileges?.api_access !== false : null;

  return (
    <Card
      withBorder
      radius="md"
      padding="lg"
      data-testid={`product-${product.id}`}
      data-kind={product.kind}
      data-plan={product.plan ?? undefined}
      data-product-id={product.id}
      data-current={current ? true : undefined}
      style={current ? { borderColor: 'var(--mantine-color-violet-6)', borderWidth: 2 } : undefined}
    >
      <Stack gap="xs" h="100%">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text fw={700} size="lg" data-testid="product-name">
            {product.name || (plan ? t(`plans.${plan}`) : product.id)}
          </Text>
          {current && (
            <Badge color="violet" variant="filled" data-testid="product-current">
              {t('pricing.currentPlan')}
            </Badge>
          )}
        </Group>
        {current?.until && (
          <Text size="sm" c="violet.8" data-testid="product-current-until">
            {t('pricing.currentUntil', { date: current.until })}
          </Text>
        )}
        {product.description && (
          <Text size="sm" c="dimmed" data-testid="product-description">
            {product.description}
          </Text>
        )}
        <Text fz={30} fw={800} lh={1.2} data-testid="product-price" data-currency={price.currency} data-amount={price.amount}>
          {free ? t('pricing.free') : formatMoney(price, ui)}
        </Text>
        {product.period_days ? (
          <Text size="sm" c="dimmed">
            {t('pricing.period', { days: formatNumber(product.period_days, ui) })}
          </Text>
        ) : null}
        <Badge variant="light" color="violet" size="lg" w="fit-content" data-testid="product-credits">
          {t('pricing.creditsAmount', { credits: formatNumber(product.credits, ui) })}
        </Badge>
        <List size="sm" spacing={4} icon={<IconCheck size={14} color="var(--mantine-color-teal-6)" />} style={{ flex: 1 }}>
          {perK && <List.Item>{t('pricing.perThousand', { price: formatMoney(perK, ui) })}</List.Item>}
          {maxText !== null && (
            <List.Item data-testid="privilege-max-text">{t('pricing.maxText', { number: formatNumber(maxText, ui) })}</List.Item>
          )}
          {ownVoices !== null && (
            <List.Item data-testid="privilege-own-voices">
              {t('pricing.ownVoices', { number: formatNumber(ownVoices, ui) })}
            </List.Item>
          )}
          {apiAccess === true && <List.Item data-testid="privilege-api">{t('pricing.apiAccess')}</List.Item>}
          {apiAccess === false && (
            <List.Item data-testid="privilege-api" icon={<IconX size={14} color="var(--mantine-color-gray-6)" />}>
              {t('pricing.noApiAccess')}
            </List.Item>
          )}
        </List>
        {free ? (
          <Button variant="default" disabled fullWidth>
            {t('pricing.freeIncluded')}
          </Button>
        ) : (
          <Button fullWidth onClick={onBuy} variant={current ? 'light' : 'filled'} data-testid="product-buy">
            {current ? t('pricing.renew') : buyLabel}
          </Button>
        )}
      </Stack>
    </Card>
  );
}
