import { useRef, useState, type ReactNode } from 'react';
import { Anchor, Button, Group, Paper, SegmentedControl, Text, Textarea, Tooltip } from '@mantine/core';
import { IconArrowsShuffle, IconEraser } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { errorMessage, LIMITS } from '@polyvox/contracts';
import { currentUiLocale } from '../../../i18n';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifyError } from '../../../lib/notify';
import { fetchRandomText } from '../../../speech/api';
import type { TextState } from '../../../speech/text';
import type { TextType } from '../../../speech/types';
import { SsmlProblemView } from './SsmlProblemView';
import type { SsmlProblem } from './useSpokenForm';

interface Props {
  text: string;
  onChange: (text: string) => void;
  state: TextState;
  disabled?: boolean;
  footer?: ReactNode;
  /** The chosen voice's language: the random text is in it, so it never conflicts with the voice. */
  language?: string;
  /** Plain text or SSML; with SSML, the server's error (its place shown) or the spoken form. */
  textType: TextType;
  onTextType: (type: TextType) => void;
  problem: SsmlProblem | null;
  spoken?: string | undefined;
}

/** The text, its live count against the limit, the over-limit message, and a random sample text. */
export function TextPanel(props: Props) {
  const { text, onChange, state, disabled, footer, language, textType, onTextType, problem, spoken } = props;
  const { t } = useTranslation();
  const field = useRef<HTMLTextAreaElement>(null);
  const show = (offset: number) => {
    const el = field.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(offset, Math.min(text.length, offset + 1));
  };
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
          <SegmentedControl
            size="xs"
            value={textType}
            onChange={(v) => onTextType(v === 'ssml' ? 'ssml' : 'text')}
            disabled={disabled}
            data={[
              { value: 'text', label: t('playground.textTypeText') },
              { value: 'ssml', label: t('playground.textTypeSsml') },
            ]}
            aria-label={t('playground.textType')}
            data-testid="playground-text-type"
          />
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
        ref={field}
        placeholder={t(textType === 'ssml' ? 'playground.ssmlPlaceholder' : 'playground.textPlaceholder')}
        styles={textType === 'ssml' ? { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } : undefined}
        autosize
        minRows={7}
        maxRows={16}
        value={text}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={state.over || !!problem}
        disabled={disabled}
        data-testid="playground-text"
      />
      {problem && <SsmlProblemView text={text} problem={problem} onShow={show} />}
      {!problem && spoken !== undefined && (
        <Text size="xs" c="dimmed" mt="xs" data-testid="playground-spoken">
          {t('playground.ssmlSpoken', { text: spoken })}
        </Text>
      )}
      <Group justify="space-between" mt="xs" wrap="nowrap" align="flex-start">
        <Text size="xs" c="red.8" data-testid="playground-too-long" hidden={!state.over}>
          {state.over ? errorMessage('TEXT_TOO_LONG', ui, { maxLength: state.max }) : ''}
          {/* A plan allows longer texts: the way there, from where the limit is met. */}
          {state.over && state.max < LIMITS.maxTextLength && (
            <>
              {' · '}
              <Anchor component={Link} to="/app/pricing" size="xs" data-testid="playground-upgrade">
                {t('playground.upgradeLonger', { max: formatNumber(LIMITS.maxTextLength, ui) })}
              </Anchor>
            </>
          )}
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
