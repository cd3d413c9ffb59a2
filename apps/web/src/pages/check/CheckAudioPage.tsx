import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Button, Container, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router-dom';
import { IconAlertTriangle, IconFileMusic, IconFlag, IconRefresh, IconShieldSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import { describeError, isApiError } from '../../api/errors';
import { EmptyState } from '../../components/EmptyState';
import { FileDrop } from '../../components/FileDrop';
import { PageHeader } from '../../components/PageHeader';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatBytes } from '../../lib/format';
import { verifyFile, type UploadProgress, type Verification } from '../../provenance/api';
import { AUDIO_ACCEPT, checkAudioFile, chooseVerdict } from '../../provenance/rules';
import { decodePeaks, type Decoded } from '../../speech/audio/decode';
import { WaveformPlayer } from '../app/playground/WaveformPlayer';
import { RecordSection } from './RecordSection';
import { AigcSection, C2paSection, VerdictCard, WatermarkSection } from './Sections';

interface CheckState {
  file: File | null;
  progress: UploadProgress | null;
  uploading: boolean;
  answer: Verification | null;
  error: unknown;
}

const IDLE: CheckState = { file: null, progress: null, uploading: false, answer: null, error: null };

/** The checked file's own audio: a blob address to play and the peaks to draw, decoded here (never sent back). */
function useFileAudio(file: File | null): { src: string | null; decoded: Decoded | null } {
  const [src, setSrc] = useState<string | null>(null);
  const [decoded, setDecoded] = useState<Decoded | null>(null);
  useEffect(() => {
    setDecoded(null);
    if (!file) {
      setSrc(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setSrc(url);
    let live = true;
    file
      .arrayBuffer()
      .then((buffer) => decodePeaks(new Uint8Array(buffer)))
      .then((result) => {
        if (live) setDecoded(result);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      URL.revokeObjectURL(url);
    };
  }, [file]);
  return { src, decoded };
}

/** A failure worth trying again: no answer, the server's own trouble, or a rate limit. */
function retryable(error: unknown): boolean {
  return !isApiError(error) || error.code === 'NETWORK' || error.status >= 500 || error.status === 429;
}

/** Anyone drops a file; the page says in plain words whether this platform made it and what labels it carries. */
export function CheckAudioContent() {
  const { t } = useTranslation();
  const inApp = useLocation().pathname.startsWith('/app');
  const { ui } = useLocaleChoice();
  const [state, setState] = useState<CheckState>(IDLE);
  const [fileError, setFileError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const { src, decoded } = useFileAudio(state.file);
  useEffect(() => () => abort.current?.abort(), []);

  const check = async (file: File) => {
    const problem = checkAudioFile(file);
    if (problem) {
      setFileError(
        problem === 'size'
          ? errorMessage('FILE_TOO_LARGE', ui, { limit: formatBytes(LIMITS.provenanceMaxBytes, ui) })
          : problem === 'empty'
            ? t('check.fileEmpty')
            : errorMessage('UNSUPPORTED_FILE_TYPE', ui),
      );
      return;
    }
    setFileError(null);
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setState({ ...IDLE, file, progress: { loaded: 0, total: file.size }, uploading: true });
    try {
      const answer = await verifyFile(file, (progress) => setState((s) => ({ ...s, progress })), controller.signal);
      setState((s) => ({ ...s, uploading: false, answer }));
    } catch (error) {
      const cancelled = error instanceof DOMException && error.name === 'AbortError';
      if (abort.current === controller) setState((s) => (cancelled ? IDLE : { ...s, uploading: false, error }));
    } finally {
      if (abort.current === controller) abort.current = null;
    }
  };

  const { file, answer, error } = state;
  return (
    // Ids, codes and hashes are long unbroken strings: they wrap anywhere rather than widen a phone screen.
    <Stack data-testid="check-page" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
      <PageHeader title={t('check.title')} description={t('check.description')} />
      <FileDrop
        prefix="check"
        title={t('check.dropTitle')}
        body={t('check.dropBody', { limit: formatBytes(LIMITS.provenanceMaxBytes, ui) })}
        accept={AUDIO_ACCEPT}
        onFile={(f) => void check(f)}
        uploading={state.uploading}
        progress={state.progress}
        uploadingText={t('check.uploading', { name: file?.name ?? '' })}
        workingText={t('check.working')}
        onCancel={() => abort.current?.abort()}
        fileError={fileError}
        icon={<IconShieldSearch size={24} />}
      />
      {!file && <EmptyState icon={<IconShieldSearch size={26} />} title={t('check.emptyTitle')} body={t('check.emptyBody')} />}
      {file && (
        <Paper withBorder radius="md" p="md" data-testid="check-picked" data-name={file.name}>
          <Group gap="xs" mb="sm" wrap="nowrap">
            <IconFileMusic size={18} style={{ flexShrink: 0 }} />
            <Text fw={600} size="sm" style={{ flexShrink: 0 }}>
              {t('check.checked')}
            </Text>
            <Text size="sm" c="dimmed" truncate style={{ minWidth: 0 }}>
              {file.name} · {formatBytes(file.size, ui)}
            </Text>
          </Group>
          {decoded && <WaveformPlayer src={src} peaks={decoded.peaks} duration={decoded.duration} autoplay={false} />}
        </Paper>
      )}
      {error !== null && (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={t('check.failed')}
          role="alert"
          data-testid="check-error"
          data-code={isApiError(error) ? error.code : ''}
        >
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{describeError(error, ui, t('errors.network'))}</Text>
            {retryable(error) && file && (
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconRefresh size={14} />}
                onClick={() => void check(file)}
                data-testid="check-retry"
              >
                {t('common.retry')}
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {answer && <Answer answer={answer} />}
      <Group gap={6}>
        <IconFlag size={16} />
        <Anchor component={Link} to={inApp ? '/app/report' : '/report'} size="sm" data-testid="check-report">
          {t('report.fromCheck')}
        </Anchor>
      </Group>
    </Stack>
  );
}

function Answer({ answer }: { answer: Verification }) {
  return (
    <Stack data-testid="check-answer">
      <VerdictCard verdict={chooseVerdict(answer)} />
      {answer.record && <RecordSection record={answer.record} />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <WatermarkSection watermark={answer.watermark} />
        <C2paSection c2pa={answer.c2pa} />
      </SimpleGrid>
      <AigcSection aigc={answer.aigc} valid={answer.aigc_valid} />
    </Stack>
  );
}

/** The page for visitors, on the public layout (a signed-in user is shown the console's own). */
export function PublicCheckAudioPage() {
  return (
    <Container size="lg" py="xl">
      <CheckAudioContent />
    </Container>
  );
}
