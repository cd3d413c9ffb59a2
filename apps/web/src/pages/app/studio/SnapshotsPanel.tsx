import { useState } from 'react';
import { Button, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../../economy/download';
import { useLocaleChoice } from '../../../i18n/hooks';
import { notifyError } from '../../../lib/notify';
import { fileNamePart } from '../../../speech/download-name';
import { EXPORT_FORMATS, exportSnapshot, type ExportFormat, type ProjectDetail, type Snapshot } from '../../../studio/api';
import { isMissingRoute } from '../../../studio/missing';
import { useSnapshots } from './queries';

/** What a chapter alone can be downloaded as (the audiobook and the zip are the whole project's). */
const CHAPTER_FORMATS: readonly ExportFormat[] = ['mp3', 'wav', 'srt', 'vtt'];
const LABEL: Record<ExportFormat, string> = { mp3: 'MP3', wav: 'WAV', m4b: 'M4B', srt: 'SRT', vtt: 'VTT', zip: 'ZIP' };

/** Every conversion kept as a snapshot: the whole project or one chapter, as audio, audiobook, subtitles or a zip. */
export function SnapshotsPanel({ project, converting }: { project: ProjectDetail; converting: boolean }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const snapshots = useSnapshots(project.project_id, converting);
  const [scope, setScope] = useState('');
  const [exportMissing, setExportMissing] = useState(false);
  const [pending, setPending] = useState<string | null>(null);
  const list = [...(snapshots.data ?? [])].sort((a, b) => b.created_at_unix - a.created_at_unix);
  const formats = scope ? CHAPTER_FORMATS : EXPORT_FORMATS;

  const download = async (s: Snapshot, format: ExportFormat) => {
    const key = `${s.project_snapshot_id}:${format}`;
    setPending(key);
    try {
      const { blob, name } = await exportSnapshot(project.project_id, s.project_snapshot_id, format, scope || undefined);
      const chapter = project.chapters.find((c) => c.chapter_id === scope);
      const fallback = `${fileNamePart(project.name)}${chapter ? `-${fileNamePart(chapter.name)}` : ''}.${format}`;
      saveBlob(blob, name ?? fallback);
    } catch (e) {
      if (isMissingRoute(e)) setExportMissing(true);
      else notifyError(e);
    } finally {
      setPending(null);
    }
  };

  return (
    <Paper withBorder radius="md" p="md" data-testid="snapshots-panel" data-available={snapshots.available ?? ''}>
      <Text fw={500} size="sm">
        {t('studio.snapshotsTitle')}
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        {t('studio.snapshotsHint')}
      </Text>
      {snapshots.available === false ? (
        <Text size="sm" c="dimmed" data-testid="snapshots-later">
          {t('studio.snapshotsLater')}
        </Text>
      ) : list.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="snapshots-empty">
          {t('studio.snapshotsEmpty')}
        </Text>
      ) : (
        <Stack gap="sm">
          <NativeSelect
            size="xs"
            label={t('studio.exportScope')}
            value={scope}
            onChange={(e) => setScope(e.currentTarget.value)}
            data={[
              { value: '', label: t('studio.wholeBook') },
              ...project.chapters.map((c) => ({ value: c.chapter_id, label: c.name })),
            ]}
            data-testid="export-scope"
          />
          {list.map((s) => (
            <Stack key={s.project_snapshot_id} gap={4} data-testid="snapshot-row" data-id={s.project_snapshot_id}>
              <Text size="sm" truncate>
                {s.name || new Date(s.created_at_unix * 1000).toLocaleString(ui)}
              </Text>
              <Group gap={4} wrap="wrap">
                {formats.map((f) => (
                  <Button
                    key={f}
                    size="compact-xs"
                    variant="light"
                    leftSection={<IconDownload size={12} />}
                    disabled={exportMissing || (pending !== null && pending !== `${s.project_snapshot_id}:${f}`)}
                    loading={pending === `${s.project_snapshot_id}:${f}`}
                    onClick={() => void download(s, f)}
                    aria-label={t('studio.download', { format: LABEL[f] })}
                    data-testid={`snapshot-download-${f}`}
                  >
                    {LABEL[f]}
                  </Button>
                ))}
              </Group>
            </Stack>
          ))}
          {exportMissing && (
            <Text size="xs" c="dimmed" data-testid="export-later">
              {t('studio.exportLater')}
            </Text>
          )}
        </Stack>
      )}
    </Paper>
  );
}
