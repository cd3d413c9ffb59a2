import { useState, type ReactNode } from 'react';
import { Button, Group, Paper, Text, Textarea, Tooltip } from '@mantine/core';
import { IconArrowsShuffle, IconEraser } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { currentUiLocale } from '../../../i18n';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifyError } from '../../../lib/notify';
import { fetchRandomText } from '../../../speech/api';
import type { TextState } from '../../../speech/text';

interface Props {
  text: string;
  onChange: (text: string) => void;
  state: TextState;
  disabled?: boolean;
  footer?: ReactNode;
  /** The chosen voice's language: the random text is in it, so it never conflicts with the voice. */
  language?: string;
}

/** The text, its live count against the limit, the over-limit message, and a random sample text. */
export function TextPanel({ text, onChange, state, disabled, footer, language }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [loadingRandom, setLoadingRandom] = useState(false);

  const random = async () => {
    setLoadingRandom(true);
    try {
      const sample = await fetchRandomText(language ?? currentUiLocale());
      onChange(sample.previewText);
    } catch (error) {
      notifyError(error);
    } finally {
      setLoadingRandom(false);
    }
  };

  return (
    <Paper withBorder radius="md" p="lg">
      <Group justify="space-between" mb={6}>
        <Text fw={500} size="sm" component="label" htmlFor="playground-text">
          {t('playground.text')}
        </Text>
        <Group gap={4}>
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconArrowsShuffle size={14} />}
            onClick={() => void random()}
            loading={loadingRandom}
            disabled={disabled}
            data-testid="playground-random"
          >
            {t('playground.randomText')}
          </Button>
          <Button
            variant="subtle"
            color="gray"
            size="compact-sm"
            leftSection={<IconEraser size={14} />}
            onClick={() => onChange('')}
            disabled={disabled || text.length === 0}
            data-testid="playground-clear"
          >
            {t('playground.clear')}
          </Button>
        </Group>
      </Group>
      <Textarea
        id="playground-text"
        placeholder={t('playground.textPlaceholder')}
        autosize
        minRows={7}
        maxRows={16}
        value={text}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={state.over}
        disabled={disabled}
        data-testid="playground-text"
      />
      <Group justify="space-between" mt="xs" wrap="nowrap" align="flex-start">
        <Text size="xs" c="red.8" data-testid="playground-too-long" hidden={!state.over}>
          {state.over ? errorMessage('TEXT_TOO_LONG', ui, { maxLength: state.max }) : ''}
        </Text>
        <Tooltip label={t('playground.countHint')}>
          <Text
            size="xs"
            c={state.over ? 'red' : 'dimmed'}
            fw={state.over ? 600 : 400}
            ml="auto"
            data-testid="playground-count"
            data-characters={state.characters}
            data-max={state.max}
          >
            {t('playground.count', { characters: formatNumber(state.characters, ui), max: formatNumber(state.max, ui) })}
          </Text>
        </Tooltip>
      </Group>
      {footer}
    </Paper>
  );
}
