import { useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Pagination,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { REPORT_STATUSES, type AdminReport, type ReportStatus } from '@polyvox/contracts';
import { http } from '../../api/client';
import { describeError } from '../../api/errors';
import { LoadError } from '../../components/LoadError';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { notifyError, notifyInfo } from '../../lib/notify';
import { queryClient } from '../../lib/query-client';
import { reportsEn } from '../i18n/reports-en';
import { reportsZhCN } from '../i18n/reports-zh-CN';
import { reportsZhTW } from '../i18n/reports-zh-TW';
import { fill, useTexts } from '../i18n/texts';
import { reportsApi, type ReportAction } from '../reports-api';

export const REPORTS_TEXTS = { en: reportsEn, 'zh-CN': reportsZhCN, 'zh-TW': reportsZhTW };
const KEY = ['admin', 'reports'] as const;
const STATUS_COLOR: Record<ReportStatus, string> = { new: 'blue', in_review: 'yellow', actioned: 'teal', rejected: 'gray' };

/** The actions a report offers in its state (the server checks each operator's permission again). */
function actionsFor(r: AdminReport): ReportAction[] {
  if (r.status === 'actioned' || r.status === 'rejected') return [];
  const out: ReportAction[] = r.status === 'new' ? ['review'] : [];
  if (r.voice && !r.voice.taken_down) out.push('takedown');
  if (r.account_id) out.push('disable-account');
  if (r.voice || r.has_file) out.push('protect');
  out.push('reject');
  return out;
}

/** The queue of reports: by status in the URL (#/admin/reports?status=new), each with its provenance and actions. */
export default function ReportsPage() {
  const texts = useTexts(REPORTS_TEXTS);
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? 'new') as ReportStatus | 'all';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const list = useQuery({
    queryKey: [...KEY, status, page],
    queryFn: () => reportsApi.list(status === 'all' ? undefined : status, page),
  });
  const [acting, setActing] = useState<{ report: AdminReport; action: ReportAction } | null>(null);
  return (
    <>
      <PageHeader title={texts.title} description={texts.description} />
      <Stack>
        <SegmentedControl
          value={status}
          onChange={(v) => setParams({ status: v }, { replace: true })}
          data={[...REPORT_STATUSES.map((s) => ({ value: s, label: texts.statuses[s] })), { value: 'all', label: texts.all }]}
          data-testid="reports-status"
          style={{ maxWidth: '100%', overflowX: 'auto' }}
        />
        {list.isError ? (
          <LoadError error={list.error} onRetry={() => void list.refetch()} what="reports" />
        ) : list.data && list.data.items.length === 0 ? (
          <Text c="dimmed">{texts.empty}</Text>
        ) : (
          <Stack data-testid="reports-list">
            {list.data?.items.map((r) => (
              <ReportCard key={r.id} report={r} onAct={(action) => setActing({ report: r, action })} />
            ))}
          </Stack>
        )}
        {list.data && list.data.total > list.data.page_size && (
          <Pagination
            total={Math.ceil(list.data.total / list.data.page_size)}
            value={page}
            onChange={(p) => setParams({ status, page: String(p) })}
          />
        )}
      </Stack>
      {acting && <ActionDialog {...acting} onClose={() => setActing(null)} />}
    </>
  );
}

function ReportCard({ report: r, onAct }: { report: AdminReport; onAct: (a: ReportAction) => void }) {
  const texts = useTexts(REPORTS_TEXTS);
  const { ui } = useLocaleChoice();
  const [audio, setAudio] = useState<string | null>(null);
  const listen = useMutation({
    mutationFn: async () => {
      const res = await http<Response>('GET', reportsApi.audioUrl(r.id), { raw: true });
      setAudio(URL.createObjectURL(await res.blob()));
    },
    onError: notifyError,
  });
  const date = new Intl.DateTimeFormat(ui, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(r.created_at));
  const record = r.provenance?.records[0];
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      data-testid="report-card"
      data-id={r.id}
      style={{ overflowWrap: 'anywhere', minWidth: 0 }}
    >
      <Stack gap={6}>
        <Group gap="xs" wrap="wrap">
          <Badge color={STATUS_COLOR[r.status]} variant="light" data-testid="report-status">
            {texts.statuses[r.status]}
          </Badge>
          <Badge variant="outline">{texts.reasons[r.reason]}</Badge>
          <Text size="xs" c="dimmed">
            {r.id} · {date}
          </Text>
        </Group>
        <Text size="sm">
          {texts.contact}: {r.contact} ({r.consent ? texts.consentYes : texts.consentNo})
        </Text>
        {r.details && (
          <Text size="sm">
            {texts.details}: {r.details}
          </Text>
        )}
        {r.url && (
          <Text size="sm">
            {texts.link}: {r.url}
          </Text>
        )}
        {(r.voice_id || r.voice) && (
          <Text size="sm" data-testid="report-voice">
            {texts.voice}: {r.voice ? `${r.voice.name} (${r.voice.id})` : r.voice_id}
            {r.voice?.taken_down ? ` · ${texts.takenDown}` : ''}
          </Text>
        )}
        {r.account_id && (
          <Text size="sm">
            {texts.account}:{' '}
            <Anchor component={Link} to={`/admin/accounts/${encodeURIComponent(r.account_id)}`}>
              {r.account_id}
            </Anchor>
          </Text>
        )}
        {r.provenance && (
          <Text size="sm" data-testid="report-provenance">
            {texts.provenance}: {r.provenance.ai_generated ? texts.ours : texts.notOurs}
            {record
              ? ` · ${fill(texts.madeBy, { account: record.account_id ?? '—', voice: record.voice_id, request: record.request_id ?? '—' })}`
              : ''}
          </Text>
        )}
        {r.has_file &&
          (audio ? (
            <audio controls src={audio} style={{ width: '100%' }} />
          ) : (
            <Button
              size="xs"
              variant="subtle"
              onClick={() => listen.mutate()}
              loading={listen.isPending}
              style={{ alignSelf: 'flex-start' }}
            >
              {texts.listen}
            </Button>
          ))}
        {r.outcome && (
          <Text size="sm" c="dimmed">
            {texts.outcome}: {r.outcome.action}
            {r.outcome.note ? ` · ${r.outcome.note}` : ''}
          </Text>
        )}
        {actionsFor(r).length > 0 && (
          <Group gap="xs" mt={4} wrap="wrap">
            {actionsFor(r).map((a) => (
              <Button
                key={a}
                size="xs"
                variant={a === 'reject' || a === 'review' ? 'default' : 'light'}
                color={a === 'takedown' || a === 'disable-account' ? 'red' : undefined}
                onClick={() => onAct(a)}
                data-testid={`report-${a}`}
              >
                {texts.actions[a]}
              </Button>
            ))}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

function ActionDialog({ report, action, onClose }: { report: AdminReport; action: ReportAction; onClose: () => void }) {
  const texts = useTexts(REPORTS_TEXTS);
  const { ui } = useLocaleChoice();
  const [reason, setReason] = useState('');
  const [name, setName] = useState(report.voice?.name ?? '');
  const act = useMutation({
    mutationFn: () =>
      reportsApi.act(report.id, action, { reason: reason.trim(), ...(action === 'protect' ? { name: name.trim() } : {}) }),
    onSuccess: async () => {
      notifyInfo(texts.done);
      await queryClient.invalidateQueries({ queryKey: KEY });
      onClose();
    },
  });
  const ready = reason.trim() !== '' && (action !== 'protect' || name.trim() !== '');
  return (
    <Modal opened onClose={onClose} title={texts.actions[action]} centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) act.mutate();
        }}
      >
        <Stack>
          {action === 'protect' && (
            <TextInput
              label={texts.name}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              maxLength={100}
              data-testid="report-action-name"
            />
          )}
          <TextInput
            label={texts.reason}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            maxLength={500}
            data-autofocus
            data-testid="report-action-reason"
          />
          {act.error && (
            <Alert color="red" variant="light" role="alert">
              {describeError(act.error, ui, '')}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {texts.cancel}
            </Button>
            <Button type="submit" disabled={!ready} loading={act.isPending} data-testid="report-action-confirm">
              {texts.confirm}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
