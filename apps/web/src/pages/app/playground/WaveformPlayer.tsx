import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Box, Group, Text } from '@mantine/core';
import { IconPlayerPauseFilled, IconPlayerPlayFilled } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import WaveSurfer from 'wavesurfer.js';
import { playerClock } from '../../../lib/format';
import { previewPlayer, usePreviewState } from '../../../speech/preview-audio';

interface Props {
  /** What the audio element plays: a MediaSource URL while streaming, or a blob. */
  src: string | null;
  peaks: Float32Array | null;
  /** Seconds the waveform covers (the decoded audio so far). */
  duration: number | null;
  /** Start playing as soon as a new source is attached. */
  autoplay: boolean;
  /** The playback time, every frame while it plays (a transcript follows it word by word). */
  onTime?: (seconds: number) => void;
}

const COLORS = { wave: '#b197fc', progress: '#7048e8', cursor: '#5f3dc4' };

/** Every player on the page: one starting pauses the others (previews compared side by side). */
const players = new Set<HTMLAudioElement>();

/**
 * The result's waveform (wavesurfer.js driving our own <audio>), redrawn from the peaks as they
 * grow while the audio streams in; play/pause and the time. The preview player and this one
 * never play together.
 */
export function WaveformPlayer({ src, peaks, duration, autoplay, onTime }: Props) {
  const { t } = useTranslation();
  const audioRef = useRef<HTMLAudioElement>(null);
  const containerRef = useRef<HTMLDivElement>(null);
  const [ws, setWs] = useState<WaveSurfer | null>(null);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [ended, setEnded] = useState(false);
  const [mediaDuration, setMediaDuration] = useState(0);
  const [rendered, setRendered] = useState(0);
  const preview = usePreviewState();

  useEffect(() => {
    const container = containerRef.current;
    const media = audioRef.current;
    if (!container || !media) return;
    const instance = WaveSurfer.create({
      container,
      media,
      height: 80,
      waveColor: COLORS.wave,
      progressColor: COLORS.progress,
      cursorColor: COLORS.cursor,
      cursorWidth: 2,
      barWidth: 2,
      barGap: 1,
      barRadius: 2,
      normalize: true,
      dragToSeek: true,
    });
    setWs(instance);
    return () => {
      instance.destroy();
      setWs(null);
    };
  }, []);

  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    const sync = () => {
      setTime(audio.currentTime);
      setEnded(audio.ended);
      setPlaying(!audio.paused && !audio.ended);
      setMediaDuration(Number.isFinite(audio.duration) ? audio.duration : 0);
    };
    const events = ['timeupdate', 'play', 'pause', 'ended', 'durationchange', 'emptied'] as const;
    events.forEach((e) => audio.addEventListener(e, sync));
    const onPlay = () => {
      previewPlayer.stop();
      players.forEach((other) => {
        if (other !== audio) other.pause();
      });
    };
    audio.addEventListener('play', onPlay);
    players.add(audio);
    return () => {
      events.forEach((e) => audio.removeEventListener(e, sync));
      audio.removeEventListener('play', onPlay);
      players.delete(audio);
    };
  }, []);

  // A new result: attach it and play.
  useEffect(() => {
    const audio = audioRef.current;
    if (!audio || !src) return;
    if (audio.src !== src) {
      audio.src = src;
      setRendered(0);
    }
    if (autoplay) void audio.play().catch(() => undefined);
  }, [src, autoplay]);

  // The waveform so far, drawn from the peaks (no second download or decode); it can come before
  // the source when a format plays only once it has fully arrived.
  useEffect(() => {
    if (!ws || !peaks || !duration) return;
    ws.load(src ?? '', [peaks], duration)
      .then(() => setRendered(duration))
      .catch(() => undefined);
  }, [ws, src, peaks, duration]);

  // Every frame while it plays (timeupdate comes only about four times a second: too coarse for words).
  useEffect(() => {
    const audio = audioRef.current;
    if (!onTime || !audio) return;
    onTime(audio.currentTime);
    if (!playing) return;
    let frame = requestAnimationFrame(function tick() {
      onTime(audio.currentTime);
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [playing, time, onTime]);

  // A voice preview starting pauses the result.
  useEffect(() => {
    if (preview.status === 'loading' || preview.status === 'playing') audioRef.current?.pause();
  }, [preview.status]);

  const total = Math.max(duration ?? 0, mediaDuration);
  const clock = playerClock(time, total, ended);
  const toggle = () => {
    const audio = audioRef.current;
    if (!audio) return;
    if (audio.paused) void audio.play().catch(() => undefined);
    else audio.pause();
  };

  return (
    <Group wrap="nowrap" gap="md" align="center">
      <audio ref={audioRef} preload="auto" hidden data-testid="result-audio" />
      <ActionIcon
        size={44}
        radius="xl"
        onClick={toggle}
        disabled={!src}
        aria-label={playing ? t('playground.pause') : t('playground.play')}
        data-testid="result-play"
        data-playing={playing}
      >
        {playing ? <IconPlayerPauseFilled size={20} /> : <IconPlayerPlayFilled size={20} />}
      </ActionIcon>
      <Box style={{ flex: 1, minWidth: 0 }}>
        <div
          ref={containerRef}
          data-testid="waveform"
          data-duration={rendered > 0 ? rendered.toFixed(3) : ''}
          style={{ minHeight: 80 }}
        />
        <Group justify="space-between" mt={4}>
          <Text size="xs" c="dimmed" ff="monospace" data-testid="result-time">
            {clock.elapsed}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace" data-testid="result-duration">
            {clock.total}
          </Text>
        </Group>
      </Box>
    </Group>
  );
}
