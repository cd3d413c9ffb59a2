import { useState, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Checkbox,
  Container,
  FileInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconFlag } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { LIMITS, REPORT_REASONS, type ReportReason } from '@polyvox/contracts';
import { browserUploadDeps, http, requestQueue } from '../../api/client';
import { describeError } from '../../api/errors';
import { postForm } from '../../api/upload';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatBytes } from '../../lib/format';

type Kind = 'file' | 'url' | 'voice';
const KINDS: Kind[] = ['file', 'url', 'voice'];

interface Draft {
  kind: Kind;
  file: File | null;
  url: string;
  voice: string;
  reason: ReportReason | null;
  details: string;
  contact: string;
  consent: boolean;
}

const EMPTY: Draft = { kind: 'file', file: null, url: '', voice: '', reason: null, details: '', contact: '', consent: false };

/** POST /reports: the file as multipart, or a link or a voice id as JSON. */
function send(d: Draft): Promise<{ id: string }> {
  const fields = {
    reason: d.reason!,
    contact: d.contact.trim(),
    consent: d.consent,
    ...(d.details.trim() ? { details: d.details.trim() } : {}),
  };
  if (d.kind === 'file' && d.file) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
    form.append('file', d.file, d.file.name);
    const file = d.file;
    return requestQueue.enqueue(() =>
      postForm<{ id: string }>({ path: '/reports', form, size: file.size }, () => {}, browserUploadDeps()),
    );
  }
  const target = d.kind === 'url' ? { url: d.url.trim() } : { voice_id: d.voice.trim() };
  return http<{ id: string }>('POST', '/reports', { json: { ...fields, ...target } });
}

/**
 * "Report misuse": anyone (signed in or not) reports a file, a link to one of this site's files, or a voice, with the
 * reason and a contact address. The server checks the file's provenance; the operator's queue takes it from there.
 */
export function ReportContent() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [d, setD] = useState<Draft>(EMPTY);
  const [touched, setTouched] = useState(false);
  const limit = formatBytes(LIMITS.cloneMaxBytes, ui);
  const tooLarge = d.file !== null && d.file.size > LIMITS.cloneMaxBytes;
  const target =
    d.kind === 'file' ? d.file !== null && !tooLarge : d.kind === 'url' ? d.url.trim() !== '' : d.voice.trim() !== '';
  const valid = target && d.reason !== null && /^\S+@\S+\.\S+$/.test(d.contact.trim()) && d.consent;
  const submit = useMutation({ mutationFn: () => send(d) });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (valid) submit.mutate();
  };
  const need = (ok: boolean) => (touched && !ok ? t('report.required') : undefined);

  if (submit.data)
    return (
      <Stack data-testid="report-page">
        <PageHeader title={t('report.title')} />
        <Alert
          color="teal"
          icon={<IconCircleCheck size={18} />}
          title={t('report.sentTitle')}
          data-testid="report-sent"
          data-id={submit.data.id}
        >
          <Stack gap="sm" align="flex-start">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {t('report.sentBody', { id: submit.data.id })}
            </Text>
            <Button
              variant="light"
              size="xs"
              onClick={() => {
                submit.reset();
                setD(EMPTY);
                setTouched(false);
              }}
            >
              {t('report.another')}
            </Button>
          </Stack>
        </Alert>
      </Stack>
    );

  return (
    <Stack data-testid="report-page" style={{ minWidth: 0 }}>
      <PageHeader title={t('report.title')} description={t('report.description')} />
      <Paper withBorder radius="md" p="md" maw={720}>
        <form onSubmit={onSubmit} noValidate>
          <Stack>
            <div>
              <Text size="sm" fw={500} mb={4} id="report-what">
                {t('report.what')}
              </Text>
              <SegmentedControl
                aria-labelledby="report-what"
                fullWidth
                orientation={undefined}
                value={d.kind}
                onChange={(v) => setD({ ...d, kind: v as Kind })}
                data={KINDS.map((k) => ({ value: k, label: t(`report.kinds.${k}`) }))}
                data-testid="report-kind"
                styles={{ label: { whiteSpace: 'normal' } }}
              />
            </div>
            {d.kind === 'file' && (
              <FileInput
                label={t('report.file')}
                placeholder={t('report.filePlaceholder', { limit })}
                accept="audio/*,.mp3,.wav,.m4a,.ogg,.opus"
                value={d.file}
                onChange={(f) => setD({ ...d, file: f })}
                error={tooLarge ? t('report.fileTooLarge', { limit }) : need(d.file !== null)}
                clearable
                data-testid="report-file"
              />
            )}
            {d.kind === 'url' && (
              <TextInput
                label={t('report.url')}
                placeholder={t('report.urlPlaceholder')}
                value={d.url}
                onChange={(e) => setD({ ...d, url: e.currentTarget.value })}
                error={need(d.url.trim() !== '')}
                data-testid="report-url"
              />
            )}
            {d.kind === 'voice' && (
              <TextInput
                label={t('report.voice')}
                placeholder={t('report.voicePlaceholder')}
                value={d.voice}
                onChange={(e) => setD({ ...d, voice: e.currentTarget.value })}
                error={need(d.voice.trim() !== '')}
                data-testid="report-voice"
              />
            )}
            <Select
              label={t('report.reason')}
              data={REPORT_REASONS.map((r) => ({ value: r, label: t(`report.reasons.${r}`) }))}
              value={d.reason}
              onChange={(v) => setD({ ...d, reason: (v as ReportReason | null) ?? null })}
              error={need(d.reason !== null)}
              allowDeselect={false}
              data-testid="report-reason"
            />
            <Textarea
              label={t('report.details')}
              autosize
              minRows={3}
              maxLength={2000}
              value={d.details}
              onChange={(e) => setD({ ...d, details: e.currentTarget.value })}
              data-testid="report-details"
            />
            <TextInput
              label={t('report.contact')}
              type="email"
              autoComplete="email"
              value={d.contact}
              onChange={(e) => setD({ ...d, contact: e.currentTarget.value })}
              error={need(/^\S+@\S+\.\S+$/.test(d.contact.trim()))}
              data-testid="report-contact"
            />
            <Checkbox
              label={t('report.consent')}
              checked={d.consent}
              onChange={(e) => setD({ ...d, consent: e.currentTarget.checked })}
              error={touched && !d.consent ? t('report.consentRequired') : undefined}
              data-testid="report-consent"
            />
            {submit.error && (
              <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} role="alert" data-testid="report-error">
                {describeError(submit.error, ui, t('errors.network'))}
              </Alert>
            )}
            <Button
              type="submit"
              leftSection={<IconFlag size={16} />}
              loading={submit.isPending}
              data-testid="report-submit"
              style={{ alignSelf: 'flex-start' }}
            >
              {t('report.submit')}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}

/** The page for visitors and users alike, on the public layout. */
export function ReportPage() {
  return (
    <Container size="lg" py="xl">
      <ReportContent />
    </Container>
  );
}
