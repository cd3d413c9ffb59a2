import { Alert, Button, Paper, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { describeError } from '../../../api/errors';
import type { PreviewCreated } from '../../../design/api';
import { useLocaleChoice } from '../../../i18n/hooks';
import { findModel, useTtsConfig } from '../../../speech/useTtsConfig';
import { PreviewCard } from './PreviewCard';
import type { PreviewResult } from './useDesignPreviews';

interface Props {
  results: PreviewResult[];
  onActivate?: (preview: PreviewCreated) => void;
  /** The label of the action (activate, or save for a mix). */
  actionLabel?: string;
}

const LABELS = ['A', 'B', 'C'];

/** The previews just made, side by side: one column per model. */
export function PreviewResults({ results, onActivate, actionLabel }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const config = useTtsConfig().data;
  if (results.length === 0) return null;
  const label = (i: number) => (results.length > 1 ? LABELS[i] : undefined);
  return (
    <SimpleGrid cols={{ base: 1, md: Math.min(3, results.length) }} data-testid="preview-results">
      {results.map((r, i) =>
        r.preview ? (
          <PreviewCard
            key={r.preview.id}
            preview={r.preview}
            model={r.model}
            label={label(i)}
            autoplay={i === 0}
            testId="preview-result"
            action={
              onActivate ? (
                <Button size="xs" onClick={() => onActivate(r.preview!)} data-testid="preview-activate">
                  {actionLabel ?? t('design.activate')}
                </Button>
              ) : undefined
            }
          />
        ) : r.error ? (
          <Alert
            key={`${r.model}-error`}
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={findModel(config, r.model)?.model_name ?? r.model}
            data-testid="preview-error"
          >
            {describeError(r.error, ui, t('errors.network'))}
          </Alert>
        ) : (
          <Paper key={`${r.model}-pending`} withBorder radius="md" p="md" data-testid="preview-pending">
            <Stack gap="xs">
              <Text size="sm" c="dimmed">
                {t('design.generating', { model: findModel(config, r.model)?.model_name ?? r.model })}
              </Text>
              <Skeleton h={80} />
            </Stack>
          </Paper>
        ),
      )}
    </SimpleGrid>
  );
}
