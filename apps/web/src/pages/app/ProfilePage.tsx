import type { ReactNode } from 'react';
import { ActionIcon, CopyButton, Divider, Group, Paper, SimpleGrid, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useAccount } from '../../auth/hooks';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatDate, formatNumber } from '../../lib/format';
import { ProfileAvatar } from './ProfileAvatar';
import { ProfileEmail } from './ProfileEmail';
import { ProfileMobile } from './ProfileMobile';
import { ProfileName } from './ProfileName';
import { usePlanLabel } from './usePlanLabel';

function Field({ label, children, testId }: { label: string; children: ReactNode; testId: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" fw={500} tt="uppercase">
        {label}
      </Text>
      <Group gap={4} wrap="nowrap" data-testid={testId}>
        {children}
      </Group>
    </Stack>
  );
}

/** The day the current plan ends, in the UI locale; null for the free plan, which has no end. */
function planEnd(vip: { level: string; expire: string | null }, locale: string): string | null {
  return vip.level === 'free' ? null : formatDate(vip.expire, locale);
}

export function ProfilePage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account } = useAccount();
  const planLabel = usePlanLabel();
  if (!account) return <Skeleton h={240} radius="md" />;

  return (
    <Stack data-testid="profile-page">
      <PageHeader title={t('profile.title')} />
      <Paper withBorder radius="md" p="xl">
        <ProfileAvatar account={account} />
        <Divider my="lg" />
        <ProfileName account={account} />
        <Divider my="lg" />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="lg">
          <Field label={t('profile.email')} testId="profile-email">
            <Text>{account.email ?? t('common.none')}</Text>
          </Field>
          <Field label={t('profile.id')} testId="profile-id">
            <Text ff="monospace" size="sm">
              {account.id}
            </Text>
            <CopyButton value={account.id}>
              {({ copied, copy }) => (
                <Tooltip label={copied ? t('common.copied') : t('common.copy')} withArrow>
                  <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={t('common.copy')}>
                    {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
                  </ActionIcon>
                </Tooltip>
              )}
            </CopyButton>
          </Field>
          <Field label={t('profile.credits')} testId="profile-credits">
            <Text>{formatNumber(account.vip.credits, ui)}</Text>
          </Field>
          <Field label={t('profile.plan')} testId="profile-plan">
            <Text>{planLabel(account.vip.level)}</Text>
          </Field>
          <Field label={t('profile.planEnds')} testId="profile-plan-end">
            <Text>{planEnd(account.vip, ui) ?? t('profile.planNoEnd')}</Text>
          </Field>
          <Field label={t('profile.created')} testId="profile-created">
            <Text>{formatDate(account.create_at, ui) ?? t('common.none')}</Text>
          </Field>
        </SimpleGrid>
        {account.anonymous ? null : (
          <>
            <Divider my="lg" />
            <ProfileEmail account={account} />
          </>
        )}
        <Divider my="lg" />
        <ProfileMobile account={account} />
      </Paper>
    </Stack>
  );
}
