import '@mantine/charts/styles.css';
import { useState, type ReactNode } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import { Badge, Button, Group, Paper, SimpleGrid, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { dayLabel, formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { adminAccountsApi, type OverviewResponse } from '../accounts-api';
import { overviewEn } from '../i18n/overview-en';
import { overviewZhCN } from '../i18n/overview-zh-CN';
import { overviewZhTW } from '../i18n/overview-zh-TW';
import { fill, useTexts } from '../i18n/texts';

const TEXTS = { en: overviewEn, 'zh-CN': overviewZhCN, 'zh-TW': overviewZhTW };
const DAY_MS = 86_400_000;
const COLORS = ['violet.6', 'teal.6', 'orange.6', 'blue.6', 'pink.6', 'lime.7', 'cyan.6', 'grape.6', 'yellow.7', 'red.6'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Every UTC day from `from` to `to`, both included. */
function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && out.length <= 366; t += DAY_MS)
    out.push(utcDay(t));
  return out;
}

/** Rows of `items` pivoted into one row per day of the range, with a column per `series(item)`; missing days are 0. */
function pivot<T extends { day: string }>(days: string[], items: T[], series: (item: T) => string, value: (item: T) => number) {
  const names = [...new Set(items.map(series))];
  const rows = new Map(
    days.map((d) => [d, Object.fromEntries([['day', d], ...names.map((n) => [n, 0])]) as Record<string, string | number>]),
  );
  for (const item of items) {
    const row = rows.get(item.day);
    if (row) row[series(item)] = Number(row[series(item)] ?? 0) + value(item);
  }
  return { names, rows: [...rows.values()] };
}

function Card({ title, children, testId, sub }: { title: string; children: ReactNode; testId: string; sub?: string }) {
  return (
    <Paper withBorder radius="md" p="md" miw={0} style={{ overflow: 'hidden' }} data-testid={testId}>
      <Text fw={600}>{title}</Text>
      {sub && (
        <Text size="xs" c="dimmed">
          {sub}
        </Text>
      )}
      <Stack gap="xs" mt="sm">
        {children}
      </Stack>
    </Paper>
  );
}

function Figure({ label, value, testId, raw }: { label: string; value: ReactNode; testId: string; raw?: number }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz="lg" data-testid={testId} data-value={raw}>
        {value}
      </Text>
    </Stack>
  );
}

function Charts({ data }: { data: OverviewResponse }) {
  const texts = useTexts(TEXTS);
  const { ui } = useLocaleChoice();
  const days = daysOf(data.from, data.to);
  const label = (rows: Record<string, string | number>[]) => rows.map((r) => ({ ...r, day: dayLabel(String(r.day), ui) }));
  const num = (v: number) => formatNumber(v, ui);
  const currencies = [...new Set(data.revenue.map((r) => r.currency))];
  const engines = pivot(
    days,
    data.engines,
    (e) => e.engine,
    (e) => e.syntheses,
  );
  const engineTotals = [...new Set(data.engines.map((e) => e.engine))].map((engine) => ({
    engine,
    syntheses: data.engines.filter((e) => e.engine === engine).reduce((s, e) => s + e.syntheses, 0),
    characters: data.engines.filter((e) => e.engine === engine).reduce((s, e) => s + e.characters, 0),
  }));
  const accountRows = days.map((day) => {
    const a = data.accounts.find((x) => x.day === day);
    return { day, new_accounts: a?.new_accounts ?? 0, new_registered: a?.new_registered ?? 0, active: a?.active ?? 0 };
  });
  const creditRows = days.map((day) => {
    const c = data.credits.find((x) => x.day === day);
    return {
      day,
      granted: c?.granted ?? 0,
      deducted: c?.deducted ?? 0,
      bought: c?.bought ?? 0,
      spent: c?.spent ?? 0,
      refunded: c?.refunded ?? 0,
    };
  });
  const sum = (key: keyof (typeof creditRows)[number]) => creditRows.reduce((s, r) => s + Number(r[key]), 0);
  const seriesOf = (names: string[]) => names.map((name, i) => ({ name, color: COLORS[i % COLORS.length]! }));
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <Card title={texts.revenue} sub={texts.revenueBy} testId="overview-revenue">
        {currencies.length === 0 && <Text c="dimmed">{texts.nothing}</Text>}
        {currencies.map((currency) => {
          const rows = data.revenue.filter((r) => r.currency === currency);
          const p = pivot(
            days,
            rows,
            (r) => r.method,
            (r) => r.amount / 100,
          );
          const total = rows.reduce((s, r) => s + r.amount, 0);
          return (
            <Stack key={currency} gap={4} data-testid="revenue-currency" data-currency={currency} data-total={total}>
              <Text size="sm" fw={500}>
                {currency} · {texts.total} {(total / 100).toFixed(2)}
              </Text>
              <BarChart h={200} data={label(p.rows)} dataKey="day" type="stacked" series={seriesOf(p.names)} withLegend />
            </Stack>
          );
        })}
      </Card>
      <Card title={texts.accounts} testId="overview-accounts">
        <LineChart
          h={220}
          data={label(accountRows)}
          dataKey="day"
          withLegend
          valueFormatter={num}
          series={[
            { name: 'new_accounts', label: texts.newAccounts, color: 'violet.6' },
            { name: 'new_registered', label: texts.newRegistered, color: 'teal.6' },
            { name: 'active', label: texts.active, color: 'orange.6' },
          ]}
        />
      </Card>
      <Card title={texts.credits} testId="overview-credits">
        <BarChart
          h={220}
          data={label(creditRows)}
          dataKey="day"
          withLegend
          valueFormatter={num}
          series={[
            { name: 'granted', label: texts.granted, color: 'teal.6' },
            { name: 'bought', label: texts.bought, color: 'blue.6' },
            { name: 'spent', label: texts.spent, color: 'violet.6' },
            { name: 'refunded', label: texts.refunded, color: 'orange.6' },
            { name: 'deducted', label: texts.deducted, color: 'red.6' },
          ]}
        />
        <Group gap="lg" wrap="wrap">
          {(['granted', 'bought', 'spent', 'refunded', 'deducted'] as const).map((k) => (
            <Figure key={k} label={texts[k]} value={num(sum(k))} raw={sum(k)} testId={`credits-${k}`} />
          ))}
        </Group>
      </Card>
      <Card title={texts.engines} testId="overview-engines">
        <BarChart h={200} data={label(engines.rows)} dataKey="day" type="stacked" series={seriesOf(engines.names)} withLegend />
        <Table striped>
          <Table.Tbody>
            {engineTotals.map((e) => (
              <Table.Tr key={e.engine} data-testid="engine-total" data-engine={e.engine} data-syntheses={e.syntheses}>
                <Table.Td>{e.engine}</Table.Td>
                <Table.Td ta="right">
                  {num(e.syntheses)} {texts.syntheses}
                </Table.Td>
                <Table.Td ta="right">
                  {num(e.characters)} {texts.characters}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
      <Card title={texts.orders} testId="overview-orders">
        {data.orders_by_status.length === 0 && <Text c="dimmed">{texts.nothing}</Text>}
        <Group gap="lg" wrap="wrap">
          {data.orders_by_status.map((o) => (
            <Figure
              key={o.status}
              label={texts.status[o.status] ?? o.status}
              value={num(o.orders)}
              testId={`orders-${o.status}`}
            />
          ))}
        </Group>
      </Card>
      <Card
        title={texts.speech}
        sub={fill(texts.speechScope, { since: formatDateTime(data.speech.since, ui) ?? '' })}
        testId="overview-speech"
      >
        <Group gap="lg" wrap="wrap">
          <Figure label={texts.requests} value={num(data.speech.requests)} testId="speech-requests" />
          <Figure label={texts.errorRate} value={`${(data.speech.error_rate * 100).toFixed(2)} %`} testId="speech-error-rate" />
          <Figure label={texts.clientErrors} value={num(data.speech.client_errors)} testId="speech-4xx" />
          <Figure
            label={texts.p95}
            value={data.speech.p95_seconds === null ? '—' : `${Math.round(data.speech.p95_seconds * 1000)} ms`}
            testId="speech-p95"
          />
        </Group>
      </Card>
      <Card title={texts.queues} testId="overview-queues">
        <Text size="sm">
          {texts.role}: <Badge variant="light">{data.queues.role}</Badge>
        </Text>
        {data.queues.depth === null ? (
          <Text c="dimmed" size="sm">
            {texts.noQueue}
          </Text>
        ) : (
          <Group gap="lg" wrap="wrap">
            {Object.entries(data.queues.depth).map(([queue, depth]) => (
              <Figure key={queue} label={fill(texts.depth, { queue })} value={num(depth)} testId={`queue-${queue}`} />
            ))}
            <Figure
              label={texts.workers}
              value={data.queues.workers === null ? '—' : num(data.queues.workers)}
              testId="queue-workers"
            />
          </Group>
        )}
      </Card>
      <Card title={texts.health} testId="overview-health">
        <Group gap="lg" wrap="wrap">
          <Figure label={texts.started} value={data.engines_health.started ? texts.yes : texts.no} testId="health-started" />
          <Figure label={texts.ready} value={data.engines_health.ready ? texts.yes : texts.no} testId="health-ready" />
          <Figure
            label={fill(texts.models, { count: data.engines_health.models.length })}
            value={[...new Set(data.engines_health.models.map((m) => m.engine))].join(', ') || '—'}
            testId="health-models"
          />
        </Group>
        {data.engines_health.unavailable.length > 0 && (
          <Text size="sm" c="red">
            {texts.unavailable}: {data.engines_health.unavailable.map((u) => `${u.provider} (${u.message})`).join('; ')}
          </Text>
        )}
        {data.engines_health.problems.length > 0 && (
          <Text size="sm" c="orange">
            {texts.problems}: {data.engines_health.problems.map((p) => `${p.folder}: ${p.message}`).join('; ')}
          </Text>
        )}
      </Card>
    </SimpleGrid>
  );
}

/** Revenue, orders, accounts, engines and credits over a range of days (kept in the URL), and the deployment now. */
export function OverviewPage() {
  const texts = useTexts(TEXTS);
  const [params, setParams] = useSearchParams();
  const today = utcDay(Date.now());
  const to = DAY.test(params.get('to') ?? '') ? params.get('to')! : today;
  const from = DAY.test(params.get('from') ?? '') ? params.get('from')! : utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
  const [draft, setDraft] = useState({ from, to });
  const query = useQuery({
    queryKey: ['admin', 'overview', from, to],
    queryFn: () => adminAccountsApi.overview(from, to),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap="md">
      <PageHeader title={texts.title} description={texts.description} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ from: draft.from, to: draft.to });
        }}
      >
        <Group align="flex-end" wrap="wrap" gap="sm">
          <TextInput
            type="date"
            label={texts.from}
            value={draft.from}
            max={draft.to}
            onChange={(e) => setDraft((d) => ({ ...d, from: e.currentTarget.value }))}
            data-testid="overview-from"
          />
          <TextInput
            type="date"
            label={texts.to}
            value={draft.to}
            min={draft.from}
            onChange={(e) => setDraft((d) => ({ ...d, to: e.currentTarget.value }))}
            data-testid="overview-to"
          />
          <Button type="submit" data-testid="overview-apply">
            {texts.apply}
          </Button>
        </Group>
      </form>
      {query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} what="overview" />
      ) : query.data ? (
        <Charts data={query.data} />
      ) : (
        <Skeleton h={480} />
      )}
    </Stack>
  );
}
export default OverviewPage;
