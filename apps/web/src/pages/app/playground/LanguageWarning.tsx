import { Alert, Button, Text } from '@mantine/core';
import { IconLanguage } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { useLocaleChoice } from '../../../i18n/hooks';
import { languageName } from '../../../speech/languages';

interface Props {
  detected: string | undefined;
  voiceName: string;
  /** Opens the voice picker filtered to the detected language (absent when the library has none). */
  onFindVoice?: () => void;
}

/** Shown before sending when /tts/estimate says the voice does not speak the text's language. */
export function LanguageWarning({ detected, voiceName, onFindVoice }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const language = detected ? languageName(detected, ui) : '';
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconLanguage size={18} />}
      title={t('playground.languageTitle')}
      data-testid="language-warning"
      data-language={detected}
    >
      <Text size="sm" fw={500}>
        {errorMessage('LANGUAGE_UNSUPPORTED', ui)}
      </Text>
      {detected && (
        <Text size="sm" mt={4}>
          {t('playground.languageDetail', { language, voice: voiceName })}
        </Text>
      )}
      {onFindVoice && detected && (
        <Button size="xs" variant="light" color="orange" mt="sm" onClick={onFindVoice} data-testid="language-find-voice">
          {t('playground.findVoice', { language })}
        </Button>
      )}
    </Alert>
  );
}
