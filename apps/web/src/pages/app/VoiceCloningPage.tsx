import { useRef, useState } from 'react';
import { Alert, Button, Group, List, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconAlertTriangle, IconBulb, IconSparkles } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import { describeError } from '../../api/errors';
import { PageHeader } from '../../components/PageHeader';
import type { CloneSample } from '../../design/api';
import { checkCloneFile } from '../../design/rules';
import { SAMPLES_KEY, uploadSample, type UploadProgress } from '../../design/api';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatBytes } from '../../lib/format';
import { ActivateDialog, type ActivationTarget } from './design/ActivateDialog';
import { DesignFields } from './design/DesignFields';
import { PreviewHistory } from './design/PreviewHistory';
import { PreviewResults } from './design/PreviewResults';
import { SampleCard } from './design/SampleCard';
import { SampleDrop } from './design/SampleDrop';
import { useDesignForm } from './design/useDesignForm';
import { useDesignPreviews } from './design/useDesignPreviews';
import { SampleList } from './design/SampleList';
import { SampleRecorder } from './design/SampleRecorder';
import { queryClient } from '../../lib/query-client';
import { PreviewCost } from './design/PreviewCost';

interface UploadState {
  fileName: string | null;
  progress: UploadProgress | null;
  uploading: boolean;
  sample: CloneSample | null;
  error: string | null;
}

/** Consent, a sample (checked here, judged by the server), then previews on up to three models and activation. */
export function VoiceCloningPage() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [consent, setConsent] = useState(false);
  const [consentError, setConsentError] = useState<string | null>(null);
  const [upload, setUpload] = useState<UploadState>({
    fileName: null,
    progress: null,
    uploading: false,
    sample: null,
    error: null,
  });
  const abort = useRef<AbortController | null>(null);
  const { form, models, languages, errors, update, validate } = useDesignForm('clone');
  const { results, pending, start } = useDesignPreviews();
  const [target, setTarget] = useState<ActivationTarget | null>(null);
  const [needSample, setNeedSample] = useState(false);
  // A zero-shot cloning model among the chosen ones reads the sample with what it says (ZipVoice must).
  const [transcript, setTranscript] = useState('');
  const [needTranscript, setNeedTranscript] = useState(false);
  const chosen = models.filter((m) => form.models.includes(m.model));
  const asksTranscript = chosen.some((m) => m.reference_text);
  const mustTranscript = chosen.some((m) => m.reference_text === 'required');

  const onFile = async (file: File) => {
    if (!consent) {
      setConsentError(t('design.consentRequired'));
      return;
    }
    const problem = checkCloneFile(file);
    if (problem) {
      const message =
        problem === 'size'
          ? errorMessage('FILE_TOO_LARGE', ui, { limit: formatBytes(LIMITS.cloneMaxBytes, ui) })
          : problem === 'empty'
            ? t('design.fileEmpty')
            : errorMessage('UNSUPPORTED_FILE_TYPE', ui);
      setUpload((u) => ({ ...u, error: message }));
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setNeedSample(false);
    setUpload({ fileName: file.name, progress: { loaded: 0, total: file.size }, uploading: true, sample: null, error: null });
    try {
      const sample = await uploadSample(file, (progress) => setUpload((u) => ({ ...u, progress })), controller.signal);
      setUpload((u) => ({ ...u, uploading: false, sample }));
      void queryClient.invalidateQueries({ queryKey: [SAMPLES_KEY] });
    } catch (error) {
      const cancelled = error instanceof DOMException && error.name === 'AbortError';
      setUpload((u) => ({
        ...u,
        uploading: false,
        error: cancelled ? null : describeError(error, ui, t('errors.network')),
      }));
    } finally {
      if (abort.current === controller) abort.current = null;
    }
  };

  const generate = () => {
    const ok = validate();
    if (!upload.sample) setNeedSample(true);
    const missingTranscript = mustTranscript && !transcript.trim();
    setNeedTranscript(missingTranscript);
    if (!ok || !upload.sample || missingTranscript || pending) return;
    const fileId = upload.sample.id;
    void start(
      {
        type: 'clone',
        language: form.language!,
        preview_text: form.previewText.trim(),
        file_id: fileId,
        ...(asksTranscript && transcript.trim() ? { transcript: transcript.trim() } : {}),
      },
      form.models,
    );
  };

  return (
    <Stack data-testid="voice-cloning-page">
      <PageHeader title={t('voiceCloning.title')} description={t('voiceCloning.description')} />
      <Alert
        color="blue"
        variant="light"
        icon={<IconBulb size={18} />}
        title={t('design.adviceTitle')}
        data-testid="clone-advice"
      >
        <List size="sm" spacing={2}>
          <List.Item>{t('design.adviceLength')}</List.Item>
          <List.Item>{t('design.adviceSpeaker')}</List.Item>
          <List.Item>{t('design.adviceClean')}</List.Item>
        </List>
      </Alert>
      <SampleDrop
        consent={consent}
        onConsent={(value) => {
          setConsent(value);
          if (value) setConsentError(null);
        }}
        consentError={consentError}
        onFile={(file) => void onFile(file)}
        uploading={upload.uploading}
        progress={upload.progress}
        fileName={upload.fileName}
        onCancel={() => abort.current?.abort()}
        fileError={upload.error}
      />
      <Paper withBorder radius="md" p="md">
        <SampleRecorder disabled={upload.uploading} onFile={(file) => void onFile(file)} />
      </Paper>
      {upload.sample && <SampleCard sample={upload.sample} fileName={upload.fileName} />}
      <SampleList
        selected={upload.sample?.id ?? null}
        onUse={(sample) => {
          setNeedSample(false);
          setUpload({ fileName: null, progress: null, uploading: false, sample, error: null });
        }}
      />
      <Paper withBorder radius="md" p="lg">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            generate();
          }}
          noValidate
        >
          <Stack gap="sm">
            <DesignFields value={form} onChange={update} errors={errors} models={models} languages={languages} />
            {asksTranscript && (
              <Textarea
                label={t('design.transcript')}
                description={t('design.transcriptHint')}
                required={mustTranscript}
                autosize
                minRows={2}
                maxLength={LIMITS.transcriptMaxLength}
                value={transcript}
                onChange={(e) => {
                  setTranscript(e.currentTarget.value);
                  if (e.currentTarget.value.trim()) setNeedTranscript(false);
                }}
                error={needTranscript ? t('design.transcriptRequired') : undefined}
                data-testid="clone-transcript"
              />
            )}
            {needSample && !upload.sample && (
              <Text size="sm" c="red.8" data-testid="clone-need-sample">
                <IconAlertTriangle size={14} style={{ verticalAlign: -2 }} /> {t('design.sampleRequired')}
              </Text>
            )}
            <PreviewCost
              body={
                upload.sample && form.previewText.trim() && form.language && form.models.length
                  ? {
                      type: 'clone',
                      language: form.language,
                      preview_text: form.previewText.trim(),
                      file_id: upload.sample.id,
                      model: form.models[0]!,
                      ...(form.models.length > 1 ? { models: form.models } : {}),
                      ...(asksTranscript && transcript.trim() ? { transcript: transcript.trim() } : {}),
                    }
                  : null
              }
            />
            <Group justify="flex-end">
              <Button
                type="submit"
                loading={pending}
                disabled={upload.uploading}
                leftSection={<IconSparkles size={16} />}
                data-testid="design-generate"
              >
                {t('textToVoice.generate')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <PreviewResults results={results} onActivate={(preview) => setTarget({ preview, type: 'clone', name: form.name.trim() })} />
      <PreviewHistory type="clone" onActivate={(preview) => setTarget({ preview, type: 'clone', name: form.name.trim() })} />
      <ActivateDialog target={target} onClose={() => setTarget(null)} />
    </Stack>
  );
}
