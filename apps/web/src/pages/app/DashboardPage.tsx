import { Button, Card, Group, Paper, SimpleGrid, Skeleton, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconArrowRight, IconCoins, IconCrown, IconMail } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { ReactNode } from 'react';
import { useAccount } from '../../auth/hooks';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatDate, formatNumber } from '../../lib/format';
import { NAV } from '../../layout/nav';
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

const QUICK = [
  { nav: NAV.playground, label: 'dashboard.quickPlayground' },
  { nav: NAV.textToVoice, label: 'dashboard.quickDesign' },
  { nav: NAV.voiceCloning, label: 'dashboard.quickClone' },
  { nav: NAV.apiKeys, label: 'dashboard.quickKeys' },
] as const;

export function DashboardPage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const planLabel = usePlanLabel();

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
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Stat
          icon={<IconCoins size={18} />}
          label={t('dashboard.credits')}
          value={formatNumber(account.vip.credits, ui)}
          testId="dashboard-credits"
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
          value={account.email ?? t('common.none')}
          size={18}
          testId="dashboard-email"
        />
      </SimpleGrid>
      <Text fw={600} mt="sm">
        {t('dashboard.quickStart')}
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
