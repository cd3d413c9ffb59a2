import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Group, Paper, SegmentedControl, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconPlayerPlayFilled } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { describeError, isApiError } from '../../api/errors';
import { useAccount } from '../../auth/hooks';
import { useSignIn } from '../../auth/SignInContext';
import { ME_KEY } from '../../auth/session-controller';
import { useLocaleChoice } from '../../i18n/hooks';
import { formatNumber } from '../../lib/format';
import { listVoices, synthesizeFile, type AudioFormat } from '../../speech/api';
import { FORMAT_MIME } from '../../speech/audio/formats';
import { audioOfAnswer } from '../../speech/audio/response';
import { preferredVoiceLanguage } from '../../speech/languages';
import { voiceListQuery } from '../../speech/voice-query';

/**
 * The waveform player (wavesurfer.js) and the decoder that draws its peaks are fetched when a visitor first presses
 * play, alongside the synthesis, not with the home page: most first visits never play anything.
 */
const loadPlayer = () => import('../app/playground/WaveformPlayer');
const loadDecoder = () => import('../../speech/audio/decode');
const WaveformPlayer = lazy(async () => ({ default: (await loadPlayer()).WaveformPlayer }));

/** A short text: the home page's box is a taste, not the playground. */
export const TRY_MAX_CHARACTERS = 200;
const VOICES = 3;

/** MP3 where the browser plays it (every current one does), else WAV: the box asks only for audio it can play. */
function playableFormat(): AudioFormat {
  const probe = document.createElement('audio');
  return probe.canPlayType('audio/mpeg') ? 'mp3' : 'wav';
}

interface Result {
  url: string;
  peaks: Float32Array | null;
  duration: number | null;
}

/**
 * The home page's try-it box: a text, a few voices of the UI language, and play with a waveform. It speaks
 * with the visitor's own (anonymous, x-sid) account, so it spends that account's trial credits and shows
 * what is left; the server's errors (no credits, text too long…) are shown in the visitor's language.
 */
export function TryIt() {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const { account, signedIn } = useAccount();
  const signIn = useSignIn();
  const queryClient = useQueryClient();
  const language = preferredVoiceLanguage(ui);
  const [text, setText] = useState<string>(() => t('home.trySample'));
  const [voiceId, setVoiceId] = useState<string | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const voices = useQuery({
    queryKey: ['home-try-voices', language],
    queryFn: ({ signal }) => listVoices(voiceListQuery({ language }, 1, VOICES), signal),
    meta: { silent: true },
  });
  const options = useMemo(() => (voices.data?.items ?? []).slice(0, VOICES), [voices.data]);
  const chosen = options.find((v) => v.id === voiceId) ?? options[0];

  // The sample follows the interface language until the visitor edits it.
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (!edited) setText(t('home.trySample'));
  }, [t, edited]);

  useEffect(() => () => (result ? URL.revokeObjectURL(result.url) : undefined), [result]);

  const speak = useMutation({
    mutationFn: async () => {
      if (!chosen) throw new Error('no voice');
      // Fetched while the server speaks; a failure shows when it is awaited (the player's, in its Suspense).
      loadPlayer().catch(() => undefined);
      const decoder = loadDecoder();
      decoder.catch(() => undefined);
      // One whole file, no timings: the answer is the audio itself, which the element plays as it is.
      const format = playableFormat();
      const res = await synthesizeFile({ text: text.trim(), voice_id: chosen.id, format, speed: 1, pitch: 0 });
      const audio = audioOfAnswer(
        res.headers.get('content-type') ?? '',
        new Uint8Array(await res.arrayBuffer()),
        FORMAT_MIME[format],
      );
      const decoded = await (await decoder).decodePeaks(audio.bytes);
      return {
        url: URL.createObjectURL(new Blob([audio.bytes as Uint8Array<ArrayBuffer>], { type: audio.type })),
        peaks: decoded?.peaks ?? null,
        duration: decoded?.duration ?? null,
      };
    },
    meta: { silent: true },
    onSuccess: (next) => setResult(next),
    // The balance changed (or the server said why it could not): read the account again.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ME_KEY }),
  });

  const empty = text.trim().length === 0;
  // The trial spent (the server refused for want of credits, or none are left): say so, and offer what comes next.
  const spent =
    (speak.isError && isApiError(speak.error) && speak.error.code === 'INSUFFICIENT_BALANCE') ||
    (!speak.isPending && account !== undefined && account.vip.credits <= 0);
  return (
    <Paper withBorder radius="md" p={{ base: 'md', sm: 'xl' }} mt={48} maw={760} mx="auto" data-testid="home-try">
      <Stack gap="sm">
        <Title order={2} size="h3">
          {t('home.tryTitle')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('home.tryBody')}
        </Text>
        <Textarea
          label={t('home.tryText')}
          value={text}
          onChange={(e) => {
            setEdited(true);
            setText(e.currentTarget.value);
          }}
          maxLength={TRY_MAX_CHARACTERS}
          autosize
          minRows={2}
          data-testid="home-try-text"
        />
        {options.length > 0 && (
          <div>
            <Text size="sm" fw={500} mb={4} id="home-try-voice-label">
              {t('home.tryVoice')}
            </Text>
            <SegmentedControl
              aria-labelledby="home-try-voice-label"
              fullWidth
              value={chosen?.id ?? ''}
              onChange={setVoiceId}
              data={options.map((v) => ({ value: v.id, label: v.name }))}
              data-testid="home-try-voices"
              styles={{ label: { whiteSpace: 'normal' } }}
            />
          </div>
        )}
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Text size="sm" data-testid="home-try-credits" data-credits={account?.vip.credits}>
            {account ? t('home.tryCredits', { credits: formatNumber(account.vip.credits, ui) }) : ''}
          </Text>
          <Button
            leftSection={<IconPlayerPlayFilled size={16} />}
            onClick={() => speak.mutate()}
            loading={speak.isPending}
            disabled={empty || !chosen || spent}
            data-testid="home-try-play"
          >
            {t('home.tryPlay')}
          </Button>
        </Group>
        {spent ? (
          <Alert color="yellow" variant="light" data-testid="home-try-spent">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{signedIn ? t('home.tryOut') : t('home.trySpent')}</Text>
              {signedIn ? (
                <Button component={Link} to="/app/pricing" size="xs" data-testid="home-try-buy">
                  {t('home.tryBuy')}
                </Button>
              ) : (
                <Button size="xs" onClick={() => signIn.open()} data-testid="home-try-signup">
                  {t('home.trySignUp')}
                </Button>
              )}
            </Stack>
          </Alert>
        ) : (
          speak.isError && (
            <Alert color="red" variant="light" data-testid="home-try-error">
              {describeError(speak.error, ui, t('errors.network'))}
            </Alert>
          )
        )}
        {result && (
          <div data-testid="home-try-result">
            <Suspense fallback={<div style={{ minHeight: 100 }} />}>
              <WaveformPlayer src={result.url} peaks={result.peaks} duration={result.duration} autoplay />
            </Suspense>
          </div>
        )}
      </Stack>
    </Paper>
  );
}
