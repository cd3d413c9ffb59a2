import { Checkbox, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '@polyvox/contracts';
import type { UploadProgress } from '../../../api/upload';
import { FileDrop } from '../../../components/FileDrop';
import { CLONE_ACCEPT } from '../../../design/rules';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatBytes } from '../../../lib/format';

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

/** The consent first, then the file (a drop zone or a picker), with the upload's real progress. */
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
      <FileDrop
        prefix="clone"
        title={t('voiceCloning.dropTitle')}
        body={t('voiceCloning.dropBody', { limit: formatBytes(LIMITS.cloneMaxBytes, ui) })}
        accept={CLONE_ACCEPT}
        onFile={onFile}
        uploading={uploading}
        progress={progress}
        uploadingText={t('design.uploading', { name: fileName ?? '' })}
        workingText={t('design.analysing')}
        onCancel={onCancel}
        fileError={fileError}
      />
    </Stack>
  );
}
