import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { Button, Group, Paper, Progress, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UploadProgress } from '../api/upload';
import { useLocaleChoice } from '../i18n/hooks';
import { formatBytes } from '../lib/format';

interface Props {
  /** Names the parts' test ids: <prefix>-drop, -file, -browse, -file-error, -progress, -cancel. */
  prefix: string;
  title: string;
  body: string;
  accept: string;
  onFile: (file: File) => void;
  uploading: boolean;
  progress: UploadProgress | null;
  /** What the progress line says while the bytes go up (names the file). */
  uploadingText: string;
  /** What it says once every byte is sent and the server is at work. */
  workingText: string;
  onCancel: () => void;
  fileError: string | null;
  icon?: ReactNode;
}

/** A native drop zone and a file picker, with the upload's real progress and a cancel. */
export function FileDrop({
  prefix,
  title,
  body,
  accept,
  onFile,
  uploading,
  progress,
  uploadingText,
  workingText,
  onCancel,
  fileError,
  icon,
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
      <Paper
        radius="md"
        p="xl"
        data-testid={`${prefix}-drop`}
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
            {icon ?? <IconUpload size={24} />}
          </ThemeIcon>
          <Text fw={600} ta="center">
            {title}
          </Text>
          <Text size="sm" c="dimmed" ta="center">
            {body}
          </Text>
          <input
            ref={input}
            type="file"
            accept={accept}
            hidden
            data-testid={`${prefix}-file`}
            onChange={(e) => {
              take(e.currentTarget.files);
              e.currentTarget.value = '';
            }}
          />
          <Button
            variant="light"
            mt="xs"
            onClick={() => input.current?.click()}
            disabled={uploading}
            data-testid={`${prefix}-browse`}
          >
            {t('design.browse')}
          </Button>
          {fileError && (
            <Text size="sm" c="red.8" ta="center" role="alert" data-testid={`${prefix}-file-error`}>
              {fileError}
            </Text>
          )}
        </Stack>
      </Paper>
      {uploading && (
        <Stack gap={4} data-testid={`${prefix}-progress`} data-percent={Math.round(percent)}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" truncate>
              {uploadingText}
            </Text>
            <Group gap="xs" wrap="nowrap">
              <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {progress ? `${formatBytes(progress.loaded, ui)} / ${formatBytes(progress.total, ui)}` : ''}
              </Text>
              <Button size="compact-xs" variant="subtle" color="gray" onClick={onCancel} data-testid={`${prefix}-cancel`}>
                {t('common.cancel')}
              </Button>
            </Group>
          </Group>
          <Progress value={percent} animated={percent >= 100} striped={percent >= 100} />
          {percent >= 100 && (
            <Text size="xs" c="dimmed">
              {workingText}
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
