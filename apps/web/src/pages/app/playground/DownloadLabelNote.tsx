import { Anchor, Group, Text } from '@mantine/core';
import { IconShieldCheck } from '@tabler/icons-react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import { NAV } from '../../../layout/nav';
import { downloadMarks } from '../../../provenance/rules';
import type { AudioFormat, TtsConfig } from '../../../speech/types';

interface Props {
  format: AudioFormat;
  /** The operator's explicit label, when the server says: nothing is said about it when it does not. */
  explicit: TtsConfig['ai_label_explicit'];
  /** Where the explicit label is heard, when the server says. */
  position?: TtsConfig['ai_label_position'];
  /** The result streams (a short text): labelled as it is made, not signed; a job's whole file is signed. */
  streamed: boolean;
}

/** What a download of the chosen format carries to say it is AI-generated, and where to check a file. */
export function DownloadLabelNote({ format, explicit, position, streamed }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const marks = new Intl.ListFormat(ui, { type: 'conjunction' }).format(
    downloadMarks(format, streamed).map((m) => t(`check.download.${m}`)),
  );
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" data-testid="download-label-note" data-explicit={explicit ?? ''}>
      <IconShieldCheck size={16} color="var(--mantine-color-violet-6)" style={{ flexShrink: 0, marginTop: 2 }} />
      <Text size="xs" c="dimmed">
        {t('check.download.note', { marks })}
        {streamed && (format === 'mp3' || format === 'wav') && <> {t('check.download.streamed')}</>}
        {(explicit === 'speech' || explicit === 'rhythm') && (
          <>
            {' '}
            {t(`check.download.${explicit}`)}
            {position && <> {t(`check.download.${position === 'end' ? 'atEnd' : 'atStart'}`)}</>}
          </>
        )}{' '}
        <Anchor component={Link} to={NAV.check.path} size="xs" underline="always" data-testid="download-label-check">
          {t('check.download.link')}
        </Anchor>
      </Text>
    </Group>
  );
}
