import { useState } from 'react';
import { ActionIcon, Group, Loader, Text, Tooltip } from '@mantine/core';
import { IconPlayerPlayFilled } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocaleChoice } from '../../../i18n/hooks';
import { formatNumber } from '../../../lib/format';
import { notifyError } from '../../../lib/notify';
import { estimateWith, speakWith, type Locator } from '../../../speech/pronunciation';

interface Props {
  word: string;
  voiceId: string | undefined;
  locator: Locator;
  /** The page's one audio element: a new play replaces what it was playing. */
  audio: HTMLAudioElement | null;
}

/** Speaks the rule's word with the chosen voice and this dictionary (POST /tts, charged as usual), its price shown first. */
export function RulePlayButton({ word, voiceId, locator, audio }: Props) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const [loading, setLoading] = useState(false);
  const estimate = useQuery({
    queryKey: ['tts-estimate', voiceId, word, locator],
    queryFn: ({ signal }) => estimateWith(word, voiceId!, [locator], signal),
    enabled: !!voiceId,
    staleTime: 60_000,
    retry: false,
    meta: { silent: true },
  });
  const credits = estimate.data?.credits;
  const play = async () => {
    if (!voiceId || !audio) return;
    setLoading(true);
    try {
      const blob = await speakWith(word, voiceId, [locator]);
      if (audio.src.startsWith('blob:')) URL.revokeObjectURL(audio.src);
      audio.src = URL.createObjectURL(blob);
      audio.dataset.word = word;
      await audio.play();
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'NotAllowedError')) notifyError(e);
    } finally {
      setLoading(false);
    }
  };
  const label = `${t('pronunciation.play')}: ${word}`;
  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip
        label={credits === undefined ? label : t('pronunciation.playCost', { credits: formatNumber(credits, ui) })}
        withArrow
      >
        <ActionIcon
          variant="light"
          aria-label={label}
          onClick={() => void play()}
          disabled={!voiceId || loading}
          data-testid="rule-play"
          data-state={loading ? 'loading' : 'idle'}
        >
          {loading ? <Loader size={14} /> : <IconPlayerPlayFilled size={14} />}
        </ActionIcon>
      </Tooltip>
      <Text size="xs" c="dimmed" data-testid="rule-play-estimate" data-credits={credits ?? ''}>
        {credits === undefined ? '…' : t('playground.credits', { credits: formatNumber(credits, ui) })}
      </Text>
    </Group>
  );
}
