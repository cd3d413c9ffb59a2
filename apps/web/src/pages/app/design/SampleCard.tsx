import { Alert, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconFileMusic } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { CloneSample } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes, formatNumber, formatSeconds } from '../../../lib/format';

function Field({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}

/** The uploaded sample as the server measured it, and a warning when it is noisy. */
export function SampleCard({ sample, fileName }: { sample: CloneSample; fileName: string | null }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  return (
    <Paper withBorder radius="md" p="md" data-testid="clone-sample" data-sample-id={sample.id} data-noisy={!!sample.noisy}>
      <Group gap="xs" mb="sm" wrap="nowrap">
        <IconFileMusic size={18} />
        <Text fw={600} size="sm" truncate>
          {t('design.sampleN', { index: String(sample.index) })}
        </Text>
        {fileName && (
          <Text size="xs" c="dimmed" truncate>
            {fileName}
          </Text>
        )}
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Field label={t('design.sampleIndex')} value={`#${sample.index}`} testId="sample-index" />
        <Field label={t('design.sampleFormat')} value={sample.format.toUpperCase()} testId="sample-format" />
        <Field label={t('design.sampleSize')} value={formatBytes(sample.size, ui)} testId="sample-size" />
        <Field
          label={t('design.sampleDuration')}
          value={t('design.seconds', { seconds: formatSeconds(sample.duration, ui) })}
          testId="sample-duration"
        />
        <Field
          label={t('design.sampleRate')}
          value={t('design.hertz', { rate: formatNumber(sample.sample_rate, ui) })}
          testId="sample-rate"
        />
      </SimpleGrid>
      {sample.noisy && (
        <Alert mt="sm" color="orange" variant="light" icon={<IconAlertTriangle size={18} />} data-testid="clone-noisy">
          {t('design.noisy')}
        </Alert>
      )}
      {sample.synthetic && (
        <Alert mt="sm" color="blue" variant="light" icon={<IconAlertTriangle size={18} />} data-testid="clone-synthetic">
          {t('design.synthetic')}
        </Alert>
      )}
    </Paper>
  );
}
