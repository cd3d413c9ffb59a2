import { useRef, useState, type DragEvent } from 'react';
import { Button, Checkbox, Group, Paper, Progress, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { CLONE_ACCEPT } from '../../../design/rules';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes } from '../../../lib/format';
import type { UploadProgress } from '../../../design/upload';

interface Props {
  consent: boolean;
  onConsent: (value: boolean) => void;
  consentError: string | null;
  onFile: (file: File) => void;
  uploading: boolean;
  progress: UploadProgress | null;
  fileName: string | null;
  onCancel: () => void;
  fileError: string | null;
}

/** A native drop zone (and a file picker): the consent first, then the file, with the upload's real progress. */
export function SampleDrop({
  consent,
  onConsent,
  consentError,
  onFile,
  uploading,
  progress,
  fileName,
  onCancel,
  fileError,
}: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const take = (files: FileList | null | undefined) => {
    const file = files?.[0];
    if (file) onFile(file);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (!uploading) take(e.dataTransfer.files);
  };
  const percent = progress && progress.total > 0 ? Math.min(100, (progress.loaded / progress.total) * 100) : 0;

  return (
    <Stack gap="sm">
      <Checkbox
        checked={consent}
        onChange={(e) => onConsent(e.currentTarget.checked)}
        label={t('voiceCloning.consent')}
        description={t('design.consentHint')}
        error={consentError}
        disabled={uploading}
        data-testid="clone-consent"
      />
      <Paper
        radius="md"
        p="xl"
        data-testid="clone-drop"
        data-over={over}
        onDragEnter={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        style={{
          border: `2px dashed var(--mantine-color-${over ? 'violet-5' : fileError ? 'red-5' : 'gray-4'})`,
          background: over ? 'var(--mantine-color-violet-0)' : undefined,
          transition: 'background 120ms, border-color 120ms',
        }}
      >
        <Stack align="center" gap="xs">
          <ThemeIcon size={48} radius="xl" variant="light" color="violet">
            <IconUpload size={24} />
          </ThemeIcon>
          <Text fw={600}>{t('voiceCloning.dropTitle')}</Text>
          <Text size="sm" c="dimmed" ta="center">
            {t('voiceCloning.dropBody')}
          </Text>
          <input
            ref={input}
            type="file"
            accept={CLONE_ACCEPT}
            hidden
            data-testid="clone-file"
            onChange={(e) => {
              take(e.currentTarget.files);
              e.currentTarget.value = '';
            }}
          />
          <Button variant="light" mt="xs" onClick={() => input.current?.click()} disabled={uploading} data-testid="clone-browse">
            {t('design.browse')}
          </Button>
          {fileError && (
            <Text size="sm" c="red" data-testid="clone-file-error">
              {fileError}
            </Text>
          )}
        </Stack>
      </Paper>
      {uploading && (
        <Stack gap={4} data-testid="clone-progress" data-percent={Math.round(percent)}>
          <Group justify="space-between">
            <Text size="sm" truncate>
              {t('design.uploading', { name: fileName ?? '' })}
            </Text>
            <Group gap="xs">
              <Text size="xs" c="dimmed">
                {progress ? `${formatBytes(progress.loaded, ui)} / ${formatBytes(progress.total, ui)}` : ''}
              </Text>
              <Button size="compact-xs" variant="subtle" color="gray" onClick={onCancel} data-testid="clone-cancel">
                {t('common.cancel')}
              </Button>
            </Group>
          </Group>
          <Progress value={percent} animated={percent >= 100} striped={percent >= 100} />
          {percent >= 100 && (
            <Text size="xs" c="dimmed">
              {t('design.analysing')}
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
