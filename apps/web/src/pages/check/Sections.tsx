import type { ReactNode } from 'react';
import { Badge, Group, Paper, SimpleGrid, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconHelpCircle, IconShieldCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../i18n/hooks';
import { AIGC_KEY_ORDER, type Verification } from '../../provenance/api';
import { falseAlarmOdds, formatCount, type Verdict } from '../../provenance/rules';

const VERDICT_LOOK: Record<Verdict, { color: string; icon: ReactNode }> = {
  ours: { color: 'violet', icon: <IconShieldCheck size={28} /> },
  copied: { color: 'red', icon: <IconAlertTriangle size={28} /> },
  labelled: { color: 'orange', icon: <IconAlertTriangle size={28} /> },
  none: { color: 'gray', icon: <IconHelpCircle size={28} /> },
};

/** The headline in plain words; "none" says what it does not prove. */
export function VerdictCard({ verdict }: { verdict: Verdict }) {
  const { t } = useTranslation();
  const look = VERDICT_LOOK[verdict];
  return (
    <Paper
      withBorder
      radius="md"
      p="lg"
      data-testid="check-verdict"
      data-verdict={verdict}
      style={{ borderColor: `var(--mantine-color-${look.color}-4)`, background: `var(--mantine-color-${look.color}-0)` }}
    >
      <Group wrap="nowrap" align="flex-start" gap="md">
        <ThemeIcon size={48} radius="xl" variant="light" color={look.color} style={{ flexShrink: 0 }}>
          {look.icon}
        </ThemeIcon>
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Title order={2} size="h3" data-testid="check-verdict-title">
            {t(`check.verdict.${verdict}`)}
          </Title>
          <Text size="sm">{t(`check.verdict.${verdict}Body`)}</Text>
        </Stack>
      </Group>
    </Paper>
  );
}

interface SectionProps {
  title: string;
  hint: string;
  ok: boolean;
  status: string;
  testId: string;
  children?: ReactNode;
}

/** One part of the answer: its name, what it is, a found / not found badge, then its details. */
function Section({ title, hint, ok, status, testId, children }: SectionProps) {
  return (
    <Paper withBorder radius="md" p="lg" data-testid={testId} data-ok={ok}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
          <Title order={2} size="h4" style={{ minWidth: 0 }}>
            {title}
          </Title>
          <Badge color={ok ? 'green' : 'gray'} variant="light" style={{ flexShrink: 0 }} data-testid={`${testId}-status`}>
            {status}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          {hint}
        </Text>
        {children}
      </Stack>
    </Paper>
  );
}

function Fact({ label, value, testId, plain = false }: { label: string; value: ReactNode; testId?: string; plain?: boolean }) {
  return (
    <Stack gap={0} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={plain ? 400 : 600} data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Stack>
  );
}

export function WatermarkSection({ watermark }: { watermark: Verification['watermark'] }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const odds = falseAlarmOdds(watermark.false_alarm_rate);
  let chance: string | null = null;
  if (odds?.kind === 'oneIn') chance = t('check.watermark.oneIn', { n: formatCount(odds.n, ui) });
  else if (odds?.kind === 'below') chance = t('check.watermark.below', { n: formatCount(odds.n, ui) });
  else if (odds?.kind === 'percent') chance = t('check.watermark.percent', { percent: String(odds.percent) });
  const score = new Intl.NumberFormat(ui, { maximumFractionDigits: 2 }).format(watermark.score);
  return (
    <Section
      title={t('check.watermark.title')}
      hint={t('check.watermark.hint')}
      ok={watermark.detected}
      status={watermark.detected ? t('check.found') : t('check.notFound')}
      testId="check-watermark"
    >
      <Fact label={t('check.watermark.score')} value={score} testId="check-watermark-score" />
      {chance && <Fact label={t('check.watermark.chance')} value={chance} testId="check-watermark-chance" plain />}
      {watermark.detected && (
        <Text size="sm" data-testid="check-watermark-payload" data-found={watermark.payload_found}>
          {watermark.payload_found ? t('check.watermark.payloadFound') : t('check.watermark.payloadMissing')}
        </Text>
      )}
    </Section>
  );
}

export function C2paSection({ c2pa }: { c2pa: Verification['c2pa'] }) {
  const { t } = useTranslation();
  const present = !!c2pa?.present;
  const state = c2pa?.validation_state;
  const known = state === 'Trusted' || state === 'Valid' || state === 'Invalid';
  return (
    <Section
      title={t('check.c2pa.title')}
      hint={t('check.c2pa.hint')}
      ok={present && !!c2pa?.valid}
      status={present ? t('check.present') : t('check.absent')}
      testId="check-c2pa"
    >
      {present && c2pa ? (
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
          <Fact
            label={t('check.c2pa.state')}
            value={known ? t(`check.c2pa.states.${state}`) : String(state)}
            testId="check-c2pa-state"
          />
          <Fact
            label={t('check.c2pa.generator')}
            value={c2pa.claim_generator ?? t('common.none')}
            testId="check-c2pa-generator"
          />
        </SimpleGrid>
      ) : (
        <Text size="sm">{t('check.c2pa.absent')}</Text>
      )}
    </Section>
  );
}

export function AigcSection({ aigc, valid }: { aigc: Verification['aigc']; valid: boolean }) {
  const { t } = useTranslation();
  return (
    <Section
      title={t('check.aigc.title')}
      hint={t('check.aigc.hint')}
      ok={!!aigc && valid}
      status={aigc ? t('check.present') : t('check.absent')}
      testId="check-aigc"
    >
      {aigc ? (
        <>
          <Group gap="xs" wrap="nowrap" align="flex-start" data-testid="check-aigc-integrity" data-valid={valid}>
            {valid ? (
              <IconCircleCheck size={18} color="var(--mantine-color-green-7)" style={{ flexShrink: 0, marginTop: 2 }} />
            ) : (
              <IconAlertTriangle size={18} color="var(--mantine-color-orange-7)" style={{ flexShrink: 0, marginTop: 2 }} />
            )}
            <Text size="sm">{valid ? t('check.aigc.valid') : t('check.aigc.invalid')}</Text>
          </Group>
          <Table layout="fixed" verticalSpacing="xs" data-testid="check-aigc-fields">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="55%">{t('check.aigc.field')}</Table.Th>
                <Table.Th>{t('check.aigc.value')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {AIGC_KEY_ORDER.map((key) => (
                <Table.Tr key={key} data-testid={`check-aigc-${key}`}>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Text size="sm" ff="monospace" fw={600} style={{ overflowWrap: 'anywhere' }}>
                      {key}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {t(`check.aigc.keys.${key}`)}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }} c={aigc[key] ? undefined : 'dimmed'}>
                      {aigc[key] || t('check.aigc.empty')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      ) : (
        <Text size="sm">{t('check.aigc.absent')}</Text>
      )}
    </Section>
  );
}
