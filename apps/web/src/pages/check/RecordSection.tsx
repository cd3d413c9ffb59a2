import { Group, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconUserCheck } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { listApiKeys } from '../../api/economy';
import { ECONOMY_KEY } from '../../economy/queries';
import { formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import type { ProducedRecord } from '../../provenance/api';
import { fetchVoice } from '../../speech/api';

const KNOWN_TYPES = ['tts', 'stream', 'job', 'openai', 'elevenlabs', 'preview'] as const;
type KnownType = (typeof KNOWN_TYPES)[number];

function Fact({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Stack gap={0} style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Stack>
  );
}

/**
 * The owner's view of the record the audio came from: when, which voice (its name when the account
 * still has it), which kind of request, which API key (its name when it still exists).
 */
export function RecordSection({ record }: { record: ProducedRecord }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const voiceId = record.voice_id;
  const keyId = record.api_key_id;
  const voice = useQuery({
    queryKey: ['check-voice', voiceId],
    queryFn: ({ signal }) => fetchVoice(voiceId!, signal),
    enabled: !!voiceId,
    retry: false,
    meta: { silent: true },
  });
  const keys = useQuery({
    queryKey: [ECONOMY_KEY, 'keys'],
    queryFn: ({ signal }) => listApiKeys(signal),
    enabled: !!keyId,
    meta: { silent: true },
  });
  const keyName = keyId ? keys.data?.items.find((k) => k.id === keyId)?.name : undefined;
  const type = (KNOWN_TYPES as readonly string[]).includes(record.type)
    ? t(`check.record.types.${record.type as KnownType}`)
    : record.type;
  return (
    <Paper withBorder radius="md" p="lg" data-testid="check-record" data-produce-id={record.produce_id}>
      <Stack gap="sm">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon size={36} radius="xl" variant="light" color="violet" style={{ flexShrink: 0 }}>
            <IconUserCheck size={20} />
          </ThemeIcon>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Title order={2} size="h4">
              {t('check.record.title')}
            </Title>
            <Text size="sm" c="dimmed">
              {t('check.record.hint')}
            </Text>
          </Stack>
        </Group>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm">
          <Fact
            label={t('check.record.when')}
            value={formatDateTime(record.created_at, ui) ?? record.created_at}
            testId="check-record-when"
          />
          <Fact
            label={t('check.record.voice')}
            value={voiceId ? (voice.data?.name ?? voiceId) : t('common.none')}
            testId="check-record-voice"
          />
          <Fact label={t('check.record.type')} value={type} testId="check-record-type" />
          <Fact
            label={t('check.record.key')}
            value={keyId ? (keyName ? `${keyName} (${keyId})` : keyId) : t('check.record.noKey')}
            testId="check-record-key"
          />
          <Fact label={t('check.record.id')} value={record.produce_id} testId="check-record-id" />
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}
