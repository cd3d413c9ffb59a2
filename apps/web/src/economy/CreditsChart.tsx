import '@mantine/charts/styles.css';
import { useState } from 'react';
import { CompositeChart } from '@mantine/charts';
import { Group, Paper, SegmentedControl, Skeleton, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../i18n/hooks';
import { formatNumber } from '../lib/format';
import { useDayCredits } from './queries';
import { dayLabel } from './usage';

const RANGES = [7, 30, 90] as const;

/**
 * Credits spent per day (UTC days, as the statistics count them) as bars on the left axis, and the day's API calls
 * as a line on an axis of its own on the right: a few calls beside a thousand credits would be invisible on one scale.
 */
export function CreditsChart({ initialDays = 30 }: { initialDays?: (typeof RANGES)[number] }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [days, setDays] = useState<number>(initialDays);
  const { data, isPending } = useDayCredits(days);
  const items = data?.items ?? [];
  const rows = items.map((d) => ({ day: dayLabel(d.day, ui), credits: d.credits, calls: d.calls }));
  const spent = items.reduce((sum, d) => sum + d.credits, 0);

  return (
    // minWidth 0: a plot drawn at a wider layout's size (before it re-measures) never widens the page.
    <Paper
      withBorder
      radius="md"
      p="lg"
      miw={0}
      style={{ overflow: 'hidden' }}
      data-testid="credits-chart"
      data-days={days}
      data-total={spent}
    >
      <Group justify="space-between" mb="md" wrap="wrap">
        <Text fw={600}>{t('stats.chartTitle')}</Text>
        <SegmentedControl
          size="xs"
          value={String(days)}
          onChange={(v) => setDays(Number(v))}
          data={RANGES.map((d) => ({ value: String(d), label: t('stats.chartRange', { days: String(d) }) }))}
          data-testid="chart-range"
        />
      </Group>
      {isPending ? (
        <Skeleton h={240} />
      ) : (
        <>
          <CompositeChart
            h={240}
            data={rows}
            dataKey="day"
            series={[
              { name: 'credits', label: t('stats.credits'), color: 'violet.6', type: 'bar', yAxisId: 'left' },
              { name: 'calls', label: t('stats.calls'), color: 'teal.6', type: 'line', yAxisId: 'right' },
            ]}
            valueFormatter={(v) => formatNumber(v, ui)}
            withRightYAxis
            yAxisLabel={t('stats.credits')}
            rightYAxisLabel={t('stats.calls')}
            yAxisProps={{ allowDecimals: false }}
            rightYAxisProps={{ allowDecimals: false }}
            tickLine="y"
            gridAxis="y"
            withLegend
            maxBarWidth={28}
            data-testid="credits-chart-plot"
          />
          {spent === 0 && (
            <Text size="sm" c="dimmed" ta="center" mt="xs" data-testid="chart-empty">
              {t('stats.chartEmpty')}
            </Text>
          )}
        </>
      )}
    </Paper>
  );
}
