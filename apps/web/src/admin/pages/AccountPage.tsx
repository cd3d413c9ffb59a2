import 'mantine-datatable/styles.css';
import { useState, type ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, Group, Paper, SimpleGrid, Skeleton, Stack, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { PageHeader } from '../../components/PageHeader';
import { LoadError } from '../../components/LoadError';
import { formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatBytes, formatNumber } from '../../lib/format';
import { adminAccountsApi } from '../accounts-api';
import { fill, useTexts } from '../i18n/texts';
import { reportsEn } from '../i18n/reports-en';
import { reportsZhCN } from '../i18n/reports-zh-CN';
import { reportsZhTW } from '../i18n/reports-zh-TW';
import { ACCOUNTS_TEXTS, StatusBadge } from '../accounts-shared';
import { ClonedVoices, SampleAccess } from './ClonedVoices';
import { ActionDialog, type Action } from './AccountActionDialog';
import { Ledger, Orders, SimpleList } from './AccountTabs';

function Figure({ label, value, testId }: { label: string; value: ReactNode; testId: string }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={22} fw={700} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

const REPORTS_TEXTS = { en: reportsEn, 'zh-CN': reportsZhCN, 'zh-TW': reportsZhTW };

/** One account: balance and state, its ledger, orders, keys, voices, samples, sessions and reports, and the actions on it. */
export function AccountPage({ id }: { id: string }) {
  const texts = useTexts(ACCOUNTS_TEXTS);
  const reportTexts = useTexts(REPORTS_TEXTS);
  const { ui } = useLocaleChoice();
  const [action, setAction] = useState<Action | null>(null);
  const query = useQuery({ queryKey: ['admin', 'account', id], queryFn: () => adminAccountsApi.page(id) });
  const back = (
    <Anchor component={Link} to="/admin/accounts" size="sm">
      ← {texts.back}
    </Anchor>
  );
  if (query.isPending) return <Skeleton h={320} />;
  if (query.isError)
    return (
      <Stack>
        {back}
        <LoadError error={query.error} onRetry={() => void query.refetch()} what="account" />
      </Stack>
    );
  const { account, keys, voices, samples, sessions, reports, list_limit } = query.data;
  const date = (iso: string | null) => (iso ? (formatDateTime(iso, ui) ?? texts.none) : texts.none);
  const disabled = account.status === 'disabled';
  return (
    <Stack gap="md" data-testid="account-page" data-status={account.status}>
      {back}
      <PageHeader
        title={texts.account}
        description={[account.email, account.id].filter(Boolean).join(' · ')}
        actions={
          <Group gap="xs" wrap="wrap">
            <Button size="sm" variant="light" onClick={() => setAction('grant')} data-testid="action-grant">
              {texts.grant}
            </Button>
            <Button size="sm" variant="light" color="orange" onClick={() => setAction('deduct')} data-testid="action-deduct">
              {texts.deduct}
            </Button>
            <Button size="sm" variant="light" color="gray" onClick={() => setAction('end')} data-testid="action-end">
              {texts.endSessions}
            </Button>
            {disabled ? (
              <Button size="sm" color="teal" onClick={() => setAction('enable')} data-testid="action-enable">
                {texts.enable}
              </Button>
            ) : (
              <Button size="sm" color="red" onClick={() => setAction('disable')} data-testid="action-disable">
                {texts.disable}
              </Button>
            )}
          </Group>
        }
      />
      {disabled && (
        <Alert color="red" data-testid="disabled-alert">
          {fill(texts.disabledBecause, { date: date(account.disabled_at), reason: account.disabled_reason ?? texts.none })}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Figure label={texts.balance} value={formatNumber(account.credits, ui)} testId="account-balance" />
        <Figure label={texts.held} value={formatNumber(account.held, ui)} testId="account-held" />
        <Figure label={texts.plan} value={account.vip_level} testId="account-plan" />
        <Figure label={texts.status} value={<StatusBadge status={account.status} />} testId="account-state" />
      </SimpleGrid>
      <Paper withBorder radius="md" p="md">
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="xs">
          <Text size="sm">
            {texts.phone}: {account.mobile ?? texts.none}
          </Text>
          <Text size="sm">
            {texts.name}: {account.name ?? texts.none}
          </Text>
          <Text size="sm">
            {texts.created}: {date(account.created_at)}
          </Text>
          <Text size="sm">
            {texts.referral}: {account.referral_code}
          </Text>
          <Text size="sm">
            {texts.channel}: {account.channel}
          </Text>
          <Text size="sm">
            {texts.recordsBalance}: {formatNumber(account.records_balance, ui)}
          </Text>
        </SimpleGrid>
      </Paper>
      <Tabs defaultValue="ledger" keepMounted={false}>
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          <Tabs.Tab value="ledger">{texts.ledger}</Tabs.Tab>
          <Tabs.Tab value="orders">{texts.orders}</Tabs.Tab>
          <Tabs.Tab value="keys">
            {texts.keys} <Badge size="xs">{keys.length}</Badge>
          </Tabs.Tab>
          <Tabs.Tab value="voices">
            {texts.voices} <Badge size="xs">{voices.length}</Badge>
          </Tabs.Tab>
          <Tabs.Tab value="samples">
            {texts.samples} <Badge size="xs">{samples.length}</Badge>
          </Tabs.Tab>
          <Tabs.Tab value="cloned" data-testid="tab-cloned">
            {texts.clonedVoices}
          </Tabs.Tab>
          <Tabs.Tab value="sessions" data-testid="tab-sessions">
            {texts.sessions} <Badge size="xs">{sessions.filter((s) => s.live).length}</Badge>
          </Tabs.Tab>
          <Tabs.Tab value="reports" data-testid="tab-reports">
            {texts.reports} <Badge size="xs">{reports.length}</Badge>
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="ledger" pt="md">
          <Ledger id={account.id} texts={texts} />
        </Tabs.Panel>
        <Tabs.Panel value="orders" pt="md">
          <Orders id={account.id} texts={texts} />
        </Tabs.Panel>
        <Tabs.Panel value="keys" pt="md">
          <SimpleList
            testId="keys-table"
            empty={texts.empty}
            heads={[texts.name, texts.prefix, texts.used, texts.limit, texts.lastUsed, texts.deleted]}
            rows={keys.map((k) => [
              k.name,
              <code key="p">{k.prefix}</code>,
              formatNumber(k.used, ui),
              k.credit_limit === null ? texts.none : formatNumber(k.credit_limit, ui),
              date(k.last_used_at),
              date(k.deleted_at),
            ])}
          />
        </Tabs.Panel>
        <Tabs.Panel value="voices" pt="md">
          <SimpleList
            testId="voices-table"
            empty={texts.empty}
            heads={[texts.name, texts.type, texts.model, texts.status, texts.created]}
            rows={voices.map((v) => [v.name, v.type, v.model, v.status, date(v.created_at)])}
          />
        </Tabs.Panel>
        <Tabs.Panel value="samples" pt="md">
          <SimpleList
            testId="samples-table"
            empty={texts.empty}
            heads={['#', texts.type, texts.duration, texts.consent, texts.created, '']}
            rows={samples.map((s) => [
              s.idx,
              `${s.format} · ${formatBytes(s.size, ui)}`,
              `${s.duration.toFixed(1)} s`,
              `${date(s.consent_at)} · ${s.consent_ip}`,
              date(s.created_at),
              // The sample as uploaded, for the operator, each opening audited with a reason.
              <SampleAccess
                key="audio"
                url={`/admin/api/accounts/${encodeURIComponent(id)}/samples/${encodeURIComponent(s.id)}/audio`}
                what={`#${s.idx}`}
                testId="sample"
              />,
            ])}
          />
        </Tabs.Panel>
        <Tabs.Panel value="cloned" pt="md">
          <ClonedVoices accountId={account.id} />
        </Tabs.Panel>
        <Tabs.Panel value="sessions" pt="md">
          <SimpleList
            testId="sessions-table"
            empty={texts.empty}
            heads={[texts.created, texts.expires, texts.status, texts.userAgent]}
            rows={sessions.map((s) => [
              date(s.created_at),
              date(s.expires_at),
              s.live ? texts.live : texts.ended,
              <Text key="ua" size="xs" lineClamp={1} maw={320}>
                {s.user_agent ?? texts.none}
              </Text>,
            ])}
          />
        </Tabs.Panel>
        <Tabs.Panel value="reports" pt="md">
          <SimpleList
            testId="reports-table"
            empty={texts.empty}
            heads={[texts.created, texts.reason, texts.status, texts.voices, '']}
            rows={reports.map((r) => [
              date(r.created_at),
              reportTexts.reasons[r.reason as keyof typeof reportTexts.reasons] ?? r.reason,
              reportTexts.statuses[r.status],
              r.voice_id ? <code key="v">{r.voice_id}</code> : texts.none,
              <Anchor key="open" component={Link} to={`/admin/reports?status=${r.status}`} size="sm">
                {texts.reportsOpen}
              </Anchor>,
            ])}
          />
        </Tabs.Panel>
      </Tabs>
      {[keys, voices, samples, sessions, reports].some((l) => l.length >= list_limit) && (
        <Text size="xs" c="dimmed">
          {fill(texts.listLimit, { limit: list_limit })}
        </Text>
      )}
      <ActionDialog action={action} account={account} texts={texts} onClose={() => setAction(null)} />
    </Stack>
  );
}
