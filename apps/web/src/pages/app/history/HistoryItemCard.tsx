import { useState } from 'react';
import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { IconDownload, IconPlayerPlay, IconTrash, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../../economy/download';
import { formatDate, formatNumber } from '../../../lib/format';
import { downloadHistory, type HistoryItem } from '../../../speech/history';
import { HistoryPlayer } from './HistoryPlayer';

/** The text an item shows: its text, or a dialogue's lines with their voices. */
export function itemText(item: HistoryItem): string {
  if (item.dialogue) return item.dialogue.map((d) => `${d.voice_name}: ${d.text}`).join('\n');
  return item.text ?? '';
}

/** The settings worth showing, as `name value` pairs. */
function settingsLine(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

/** One generation: what made it, its price and time, and play, download and delete. */
export function HistoryItemCard({ item, onDelete }: { item: HistoryItem; onDelete: () => void }) {
  const { t, i18n } = useTranslation();
  const [playing, setPlaying] = useState(false);
  const [saving, setSaving] = useState(false);
  const ext = item.output_format.split('_')[0] ?? 'mp3';
  const download = async () => {
    setSaving(true);
    try {
      saveBlob(await downloadHistory(item.history_item_id), `${item.history_item_id}.${ext}`);
    } finally {
      setSaving(false);
    }
  };
  const settings = settingsLine(item.settings);
  return (
    <Paper withBorder radius="md" p="md" data-testid="history-item" data-id={item.history_item_id}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Group gap="xs" wrap="wrap">
            <Badge variant="light">{item.dialogue ? t('history.dialogue') : (item.voice_name ?? item.voice_id)}</Badge>
            <Text size="sm" c="dimmed">
              {formatDate(item.created_at, i18n.language)}
            </Text>
          </Group>
          <Text size="sm" fw={600} data-testid="history-credits">
            {t('history.credits', { credits: formatNumber(item.credits, i18n.language) })}
          </Text>
        </Group>
        <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} lineClamp={4} data-testid="history-text">
          {itemText(item)}
        </Text>
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {item.route} · {item.api_key_id ? t('history.apiKey', { id: item.api_key_id }) : t('history.console')} ·{' '}
          {item.output_format} · {t('history.characters', { count: item.characters })}
          {settings ? ` · ${settings}` : ''}
        </Text>
        <Text size="xs" c="dimmed">
          {t('history.expires', { date: formatDate(item.expires_at, i18n.language) ?? '' })}
        </Text>
        {item.voice_taken_down && (
          <Badge color="red" variant="light" style={{ whiteSpace: 'normal', height: 'auto' }} data-testid="history-taken-down">
            {t('history.takenDown')}
          </Badge>
        )}
        {playing && item.audio_available && <HistoryPlayer id={item.history_item_id} />}
        <Group gap="xs" wrap="wrap">
          <Button
            size="xs"
            variant="light"
            leftSection={playing ? <IconX size={14} /> : <IconPlayerPlay size={14} />}
            onClick={() => setPlaying((p) => !p)}
            disabled={!item.audio_available}
            data-testid="history-play"
          >
            {playing ? t('history.hide') : t('history.play')}
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} />}
            loading={saving}
            onClick={() => void download()}
            disabled={!item.audio_available}
            data-testid="history-download"
          >
            {t('history.download')}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            leftSection={<IconTrash size={14} />}
            onClick={onDelete}
            data-testid="history-delete"
          >
            {t('history.delete')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
