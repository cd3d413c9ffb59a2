import { Button, Card, Group, Paper, SimpleGrid, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconArrowRight, IconBook, IconCoins, IconCrown, IconKey, IconMail, IconPhoneCall } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { ReactNode } from 'react';
import { useAccount } from '../../auth/hooks';
import { LoadError } from '../../components/LoadError';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatDate, formatNumber } from '../../lib/format';
import { guideUrl } from '../../lib/guide';
import { NAV } from '../../layout/nav';
import { LazyCreditsChart } from '../../economy/LazyCreditsChart';
import { useCurrentStats } from '../../economy/queries';
import { usePlanLabel } from './usePlanLabel';

interface StatProps {
  icon: ReactNode;
  label: string;
  value: ReactNode;
  testId: string;
  extra?: ReactNode;
  size?: number;
}

function Stat({ icon, label, value, testId, extra, size = 26 }: StatProps) {
  return (
    <Paper withBorder radius="md" p="lg">
      <Group gap="sm" mb="xs">
        <ThemeIcon variant="light" color="violet" radius="md">
          {icon}
        </ThemeIcon>
        <Text size="sm" c="dimmed" fw={500}>
          {label}
        </Text>
      </Group>
      <Text fz={size} fw={700} lh={1.3} data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
      {extra}
    </Paper>
  );
}

function Step({ n, title, body, children }: { n: number; title: string; body: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="lg" data-testid={`dashboard-step-${n}`}>
      <Group gap="sm" mb="xs" wrap="nowrap">
        <ThemeIcon variant="filled" color="violet" radius="xl" size={26}>
          <Text size="sm" fw={700} c="white">
            {n}
          </Text>
        </ThemeIcon>
        <Text fw={600}>{title}</Text>
      </Group>
      <Text size="sm" c="dimmed" mb="md">
        {body}
      </Text>
      {children}
    </Paper>
  );
}

/** An address breaks before its "@" (never inside a word) when the card is too narrow for it. */
function EmailText({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at <= 0) return <span title={email}>{email}</span>;
  return (
    <span title={email}>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </span>
  );
}

const QUICK = [
  { nav: NAV.playground, label: 'dashboard.quickPlayground' },
  { nav: NAV.textToVoice, label: 'dashboard.quickDesign' },
  { nav: NAV.voiceCloning, label: 'dashboard.quickClone' },
  { nav: NAV.apiKeys, label: 'dashboard.quickKeys' },
] as const;

export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const planLabel = usePlanLabel();
  const stats = useCurrentStats();

  if (!account) return <Skeleton h={160} radius="md" />;
  const expires = formatDate(account.vip.expire, ui);

  return (
    <Stack gap="lg" data-testid="dashboard-page">
      <PageHeader
        title={t('dashboard.title')}
        description={t('dashboard.welcome', { name: account.name || account.email || '' })}
        actions={
          <Button component={Link} to="/app/pricing" leftSection={<IconCoins size={16} />}>
            {t('dashboard.buyCredits')}
          </Button>
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Stat
          icon={<IconCoins size={18} />}
          label={t('dashboard.credits')}
          value={formatNumber(account.vip.credits, ui)}
          testId="dashboard-credits"
          extra={
            stats.data && (
              <Text size="xs" c="dimmed" data-testid="dashboard-credits-today">
                {t('stats.creditsTodayShort', { credits: formatNumber(stats.data.credits_today, ui) })}
              </Text>
            )
          }
        />
        <Stat
          icon={<IconPhoneCall size={18} />}
          label={t('dashboard.calls')}
          value={stats.data ? formatNumber(stats.data.calls_total, ui) : t('common.none')}
          testId="dashboard-calls"
          extra={
            stats.data && (
              <Text size="xs" c="dimmed" data-testid="dashboard-calls-today">
                {t('stats.callsTodayShort', { number: formatNumber(stats.data.calls_today, ui) })}
              </Text>
            )
          }
        />
        <Stat
          icon={<IconCrown size={18} />}
          label={t('dashboard.plan')}
          value={planLabel(account.vip.level)}
          testId="dashboard-plan"
          extra={
            expires && (
              <Text size="xs" c="dimmed">
                {t('dashboard.expires', { date: expires })}
              </Text>
            )
          }
        />
        <Stat
          icon={<IconMail size={18} />}
          label={t('dashboard.email')}
          value={account.email ? <EmailText email={account.email} /> : t('common.none')}
          size={18}
          testId="dashboard-email"
        />
      </SimpleGrid>
      {stats.isError && !stats.data && (
        <LoadError error={stats.error} onRetry={() => void stats.refetch()} retrying={stats.isFetching} what="stats" />
      )}
      <LazyCreditsChart />
      <Text fw={600} mt="sm">
        {t('dashboard.quickStart')}
      </Text>
      <SimpleGrid cols={{ base: 1, md: 3 }} data-testid="dashboard-steps">
        <Step n={1} title={t('dashboard.step1Title')} body={t('dashboard.step1Body')}>
          <Button
            component={Link}
            to={`${NAV.apiKeys.path}?create=1`}
            size="xs"
            leftSection={<IconKey size={14} />}
            data-testid="dashboard-create-key"
          >
            {t('dashboard.step1Action')}
          </Button>
        </Step>
        <Step n={2} title={t('dashboard.step2Title')} body={t('dashboard.step2Body')}>
          <Button
            component="a"
            // The documentation site (/guide/) in the console's language: quick starts, guides and the API reference.
            href={guideUrl(i18n.language)}
            target="_blank"
            rel="noopener"
            size="xs"
            variant="light"
            leftSection={<IconBook size={14} />}
            data-testid="dashboard-view-docs"
          >
            {t('dashboard.step2Action')}
          </Button>
        </Step>
        <Step n={3} title={t('dashboard.step3Title')} body={t('dashboard.step3Body')}>
          <Button component={Link} to={NAV.playground.path} size="xs" variant="light" data-testid="dashboard-try">
            {t('dashboard.step3Action')}
          </Button>
        </Step>
      </SimpleGrid>
      <Text fw={600} mt="sm">
        {t('dashboard.shortcuts')}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        {QUICK.map(({ nav, label }) => {
          const Icon = nav.icon;
          return (
            <Card key={nav.key} withBorder radius="md" component={Link} to={nav.path} padding="lg">
              <Group justify="space-between" wrap="nowrap">
                <Group gap="sm" wrap="nowrap">
                  <ThemeIcon variant="light" color="violet" radius="md">
                    <Icon size={18} />
                  </ThemeIcon>
                  <Text size="sm" fw={500}>
                    {t(label)}
                  </Text>
                </Group>
                <IconArrowRight size={16} color="var(--mantine-color-dimmed)" />
              </Group>
            </Card>
          );
        })}
      </SimpleGrid>
    </Stack>
  );
}
