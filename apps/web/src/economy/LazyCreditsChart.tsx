import { lazy, Suspense } from 'react';
import { Skeleton } from '@mantine/core';

const Chart = lazy(async () => ({ default: (await import('./CreditsChart')).CreditsChart }));

/** The credits chart, with its charting library fetched only when a page shows it. */
export function LazyCreditsChart() {
  return (
    <Suspense fallback={<Skeleton h={330} radius="md" />}>
      <Chart />
    </Suspense>
  );
}
