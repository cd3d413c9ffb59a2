import { useEffect, useState } from 'react';
import { Badge, Button, Group, Modal, Skeleton, Stack, Table, Text, Textarea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getSid } from '../../api/storage';
import { LoadError } from '../../components/LoadError';
import { WideTable } from '../../components/WideTable';
import { formatDateTime } from '../../economy/usage';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatBytes } from '../../lib/format';
import { notifyError } from '../../lib/notify';
import { adminAccountsApi } from '../accounts-api';
import { fill, useTexts } from '../i18n/texts';
import { ACCOUNTS_TEXTS } from '../accounts-shared';

/**
 * Play or download a sample: the operator gives a reason first, which the server writes to the audit trail with who
 * and when; the audio then plays here or is saved.
 */
export function SampleAccess({ url, what, testId }: { url: string; what: string; testId: string }) {
  const texts = useTexts(ACCOUNTS_TEXTS);
  const [mode, setMode] = useState<'play' | 'download' | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [audio, setAudio] = useState<string | null>(null);
  useEffect(() => () => void (audio && URL.revokeObjectURL(audio)), [audio]);

  const open = async () => {
    if (!mode) return;
    setBusy(true);
    try {
      const query = new URLSearchParams({ reason: reason.trim(), ...(mode === 'download' ? { download: 'true' } : {}) });
      const sid = getSid();
      const res = await fetch(`${url}?${query}`, { headers: sid ? { 'x-sid': sid } : {} });
      if (!res.ok) throw new Error(res.status === 404 ? texts.sampleGone : `HTTP ${res.status}`);
      const blob = await res.blob();
      const link = URL.createObjectURL(blob);
      if (mode === 'play') setAudio(link);
      else {
        const a = document.createElement('a');
        a.href = link;
        a.download = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'sample';
        a.click();
        setTimeout(() => URL.revokeObjectURL(link), 10_000);
      }
      setMode(null);
      setReason('');
    } catch (e) {
      notifyError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Group gap="xs" wrap="nowrap">
      {audio ? (
        <audio
          controls
          autoPlay
          src={audio}
          aria-label={what}
          style={{ height: 32, maxWidth: 220 }}
          data-testid={`${testId}-audio`}
        />
      ) : (
        <Button size="compact-xs" variant="light" onClick={() => setMode('play')} data-testid={`${testId}-play`}>
          {texts.play}
        </Button>
      )}
      <Button size="compact-xs" variant="subtle" onClick={() => setMode('download')} data-testid={`${testId}-download`}>
        {texts.download}
      </Button>
      <Modal opened={mode !== null} onClose={() => setMode(null)} title={fill(texts.sampleTitle, { what })}>
        <Stack>
          <Text size="sm">{texts.sampleBody}</Text>
          <Textarea
            label={texts.reasonLabel}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            maxLength={500}
            autosize
            minRows={2}
            data-autofocus
            data-testid="sample-reason"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setMode(null)}>
              {texts.cancel}
            </Button>
            <Button onClick={() => void open()} loading={busy} disabled={!reason.trim()} data-testid="sample-confirm">
              {mode === 'download' ? texts.download : texts.play}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}

/** An account's cloned voices, those its owner deleted included (kept for the retention), with consent and sample. */
export function ClonedVoices({ accountId }: { accountId: string }) {
  const texts = useTexts(ACCOUNTS_TEXTS);
  const { ui } = useLocaleChoice();
  const query = useQuery({
    queryKey: ['admin', 'cloned-voices', accountId],
    queryFn: () => adminAccountsApi.clonedVoices(accountId),
  });
  if (query.isError) return <LoadError error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <Skeleton h={120} />;
  const { items, retention_days } = query.data;
  const date = (iso: string | null) => (iso ? formatDateTime(iso, ui) : texts.none);
  const status = (s: (typeof items)[number]['status']) =>
    s === 'deleted' ? (
      <Badge color="gray" variant="light">
        {texts.deletedVoice}
      </Badge>
    ) : s === 'taken_down' ? (
      <Badge color="red" variant="light">
        {texts.takenDown}
      </Badge>
    ) : (
      <Badge color="teal" variant="light">
        {texts.active}
      </Badge>
    );
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {fill(texts.clonedVoicesNote, { days: retention_days })}
      </Text>
      {items.length === 0 ? (
        <Text c="dimmed">{texts.empty}</Text>
      ) : (
        <WideTable minWidth={760}>
          <Table striped data-testid="cloned-voices-table">
            <Table.Thead>
              <Table.Tr>
                {[texts.name, texts.status, texts.created, texts.purgeAfter, texts.sample, texts.consent, ''].map((h, i) => (
                  <Table.Th key={i}>{h}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((v) => (
                <Table.Tr key={v.id} data-testid={`cloned-${v.id}`}>
                  <Table.Td>
                    {v.name} <code>{v.id}</code>
                  </Table.Td>
                  <Table.Td>
                    {status(v.status)}
                    {v.deleted_at && <Text size="xs">{date(v.deleted_at)}</Text>}
                  </Table.Td>
                  <Table.Td>{date(v.created_at)}</Table.Td>
                  <Table.Td>{date(v.purge_after)}</Table.Td>
                  <Table.Td>
                    {v.sample
                      ? `${v.sample.format} · ${formatBytes(v.sample.size, ui)} · ${v.sample.duration.toFixed(1)} s`
                      : texts.none}
                  </Table.Td>
                  <Table.Td>{v.sample ? `${date(v.sample.consent_at)} · ${v.sample.consent_ip}` : texts.none}</Table.Td>
                  <Table.Td>
                    {v.sample && (
                      <SampleAccess
                        url={`/admin/api/accounts/${encodeURIComponent(accountId)}/cloned-voices/${encodeURIComponent(v.id)}/sample`}
                        what={v.name}
                        testId="cloned-sample"
                      />
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </WideTable>
      )}
    </Stack>
  );
}
