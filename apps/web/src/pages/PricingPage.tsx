import { useState } from 'react';
import { Container, SegmentedControl } from '@mantine/core';
import { IconDiamond } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../components/EmptyState';
import { PageHeader } from '../components/PageHeader';

/** Public /pricing and the console's /app/pricing: products arrive with billing. */
export function PricingContent() {
  const { t } = useTranslation();
  const [kind, setKind] = useState('plan');
  return (
    <div data-testid="pricing-page">
      <PageHeader title={t('pricing.title')} description={t('pricing.subtitle')} />
      <SegmentedControl
        mb="lg"
        value={kind}
        onChange={setKind}
        data={[
          { value: 'plan', label: t('pricing.plans') },
          { value: 'credits', label: t('pricing.credits') },
        ]}
      />
      <EmptyState icon={<IconDiamond size={26} />} title={t('pricing.emptyTitle')} body={t('pricing.emptyBody')} />
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
