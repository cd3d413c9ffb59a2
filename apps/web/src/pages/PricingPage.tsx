import { useState } from 'react';
import { Container, SegmentedControl, SimpleGrid, Skeleton } from '@mantine/core';
import { IconDiamond } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { Product, ProductKind } from '../api/economy';
import { useAccount } from '../auth/hooks';
import { useSignIn } from '../auth/SignInContext';
import { EmptyState } from '../components/EmptyState';
import { LoadError } from '../components/LoadError';
import { useLocaleChoice } from '../i18n/hooks';
import { formatDate } from '../lib/format';
import { PageHeader } from '../components/PageHeader';
import { CheckoutDialog } from '../economy/CheckoutDialog';
import { ProductCard } from '../economy/ProductCard';
import { RedeemBox } from '../economy/RedeemBox';
import { useProducts } from '../economy/queries';
import { notifyInfo } from '../lib/notify';

/**
 * Public /pricing and the console's /app/pricing: plans and credit packs from GET /products. Buying
 * needs a registered account (orders, their results and history live in the console): an anonymous
 * visitor is asked to sign in and comes back to the console's pricing with the same product chosen
 * (`?buy=<product id>`).
 */
/** The paid plan the account is on now (not expired), or null. */
export function currentPlanOf(
  vip: { level: string; expire: string | null },
  now = Date.now(),
): { level: string; expire: string | null } | null {
  if (vip.level === 'free' || vip.level === 'trial') return null;
  if (vip.expire && Date.parse(vip.expire) <= now) return null;
  return { level: vip.level, expire: vip.expire };
}

export function PricingContent() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  // The tab is part of the address, so a link (or the return after signing in) opens the right one.
  const kind: ProductKind = params.get('kind') === 'credits' ? 'credits' : 'plan';
  const setKind = (next: ProductKind) => {
    if (next === 'credits') params.set('kind', 'credits');
    else params.delete('kind');
    setParams(params, { replace: true });
  };
  const { signedIn, account } = useAccount();
  const { ui } = useLocaleChoice();
  const currentPlan = signedIn && account ? currentPlanOf(account.vip) : null;
  const { open: openSignIn } = useSignIn();
  const products = useProducts(kind);
  const items = products.data?.items ?? [];
  const wanted = params.get('buy');
  const [buying, setBuying] = useState<Product | null>(null);
  // After signing in the buyer lands here with ?buy=: the product opens as soon as it is listed.
  const fromLink = signedIn && wanted && !buying ? (items.find((p) => p.id === wanted) ?? null) : null;
  const shown = buying ?? fromLink;

  function buy(product: Product) {
    if (!signedIn) {
      notifyInfo(t('pricing.signInFirst'));
      openSignIn(`/app/pricing?kind=${product.kind}&buy=${encodeURIComponent(product.id)}`);
      return;
    }
    setBuying(product);
  }

  function close() {
    setBuying(null);
    if (wanted) {
      params.delete('buy');
      setParams(params, { replace: true });
    }
  }

  return (
    <div data-testid="pricing-page">
      <PageHeader title={t('pricing.title')} description={t('pricing.subtitle')} />
      <SegmentedControl
        mb="lg"
        value={kind}
        onChange={(v) => setKind(v === 'credits' ? 'credits' : 'plan')}
        data={[
          { value: 'plan', label: t('pricing.plans') },
          { value: 'credits', label: t('pricing.credits') },
        ]}
        data-testid="pricing-kind"
      />
      {products.isPending ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} h={320} radius="md" />
          ))}
        </SimpleGrid>
      ) : products.isError ? (
        <LoadError
          error={products.error}
          onRetry={() => void products.refetch()}
          retrying={products.isFetching}
          what="products"
        />
      ) : items.length === 0 ? (
        <EmptyState icon={<IconDiamond size={26} />} title={t('pricing.emptyTitle')} body={t('pricing.emptyBody')} />
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: items.length === 4 ? 4 : 3 }} data-testid="product-list">
          {items.map((product) => (
            <ProductCard
              key={product.id}
              product={product}
              onBuy={() => buy(product)}
              buyLabel={signedIn ? t(product.kind === 'plan' ? 'pricing.subscribe' : 'pricing.buy') : t('pricing.signInToBuy')}
              current={
                currentPlan && product.kind === 'plan' && product.plan === currentPlan.level
                  ? { until: formatDate(currentPlan.expire, ui) }
                  : undefined
              }
            />
          ))}
        </SimpleGrid>
      )}
      <RedeemBox onSignIn={signedIn ? undefined : () => openSignIn('/app/pricing')} />
      {shown && <CheckoutDialog key={shown.id} product={shown} listed={products.data?.payment_methods} onClose={close} />}
    </div>
  );
}

export function PublicPricingPage() {
  return (
    <Container size="lg" py="xl">
      <PricingContent />
    </Container>
  );
}
