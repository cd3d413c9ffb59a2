import { useEffect, useRef, useState } from 'react';
import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { IconMicrophone, IconPlayerStopFilled, IconX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@polyvox/contracts';
import { encodeWav } from '@polyvox/speech/formats';
import { checkRecording, clock, levelOf, RECORD_MAX_SECONDS, toMono } from '../../../design/recording';
import { useLocaleChoice } from '../../../i18n/hooks';

interface Live {
  stream: MediaStream;
  recorder: MediaRecorder;
  context: AudioContext;
  chunks: Blob[];
  started: number;
  frame: number;
  keep: boolean;
}

/**
 * Records a sample in the page (MediaRecorder), with a level meter and a duration counter; at the
 * end the recording is decoded, made a 16-bit mono WAV and handed to the same path as a file
 * (`onFile`: the same checks, the same upload). It stops by itself at 5 minutes.
 */
export function SampleRecorder({ disabled, onFile }: { disabled: boolean; onFile: (file: File) => void }) {
  const { t } = useTranslation();
  const { ui } = useLocaleChoice();
  const live = useRef<Live | null>(null);
  const [recording, setRecording] = useState(false);
  const [seconds, setSeconds] = useState(0);
  const [level, setLevel] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);

  const release = () => {
    const l = live.current;
    if (!l) return;
    cancelAnimationFrame(l.frame);
    l.stream.getTracks().forEach((track) => track.stop());
    void l.context.close().catch(() => {});
    live.current = null;
    setRecording(false);
    setLevel(0);
  };
  useEffect(
    () => () => {
      if (live.current) {
        live.current.keep = false;
        if (live.current.recorder.state !== 'inactive') live.current.recorder.stop();
      }
      release();
    },
    [],
  );

  const finish = async (chunks: Blob[], type: string) => {
    const blob = new Blob(chunks, { type });
    const context = new AudioContext();
    try {
      const decoded = await context.decodeAudioData(await blob.arrayBuffer());
      const channels = Array.from({ length: decoded.numberOfChannels }, (_, i) => decoded.getChannelData(i));
      const mono = toMono(channels);
      const length = mono.length / decoded.sampleRate;
      const found = checkRecording(length);
      if (found) {
        setProblem(errorMessage(found === 'short' ? 'AUDIO_TOO_SHORT' : 'AUDIO_TOO_LONG', ui));
        return;
      }
      const wav = encodeWav(mono, decoded.sampleRate);
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
      onFile(new File([wav], `recording-${stamp}.wav`, { type: 'audio/wav' }));
    } catch (error) {
      setProblem(t('design.recordUnavailable', { reason: error instanceof Error ? error.message : String(error) }));
    } finally {
      void context.close().catch(() => {});
    }
  };

  const start = async () => {
    setProblem(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const recorder = new MediaRecorder(stream);
      const context = new AudioContext();
      const analyser = context.createAnalyser();
      analyser.fftSize = 1024;
      context.createMediaStreamSource(stream).connect(analyser);
      const buffer = new Float32Array(analyser.fftSize);
      const l: Live = { stream, recorder, context, chunks: [], started: performance.now(), frame: 0, keep: true };
      live.current = l;
      recorder.ondataavailable = (e) => {
        if (e.data.size > 0) l.chunks.push(e.data);
      };
      recorder.onstop = () => {
        const { chunks, keep } = l;
        release();
        if (keep) void finish(chunks, recorder.mimeType);
      };
      recorder.onerror = () => {
        l.keep = false;
        release();
      };
      const tick = () => {
        const elapsed = (performance.now() - l.started) / 1000;
        setSeconds(elapsed);
        analyser.getFloatTimeDomainData(buffer);
        setLevel(levelOf(buffer));
        if (elapsed >= RECORD_MAX_SECONDS && recorder.state === 'recording') recorder.stop();
        else l.frame = requestAnimationFrame(tick);
      };
      recorder.start(1000);
      setSeconds(0);
      setRecording(true);
      l.frame = requestAnimationFrame(tick);
    } catch (error) {
      release();
      setProblem(t('design.recordUnavailable', { reason: error instanceof Error ? error.message : String(error) }));
    }
  };

  const stop = (keep: boolean) => {
    const l = live.current;
    if (!l) return;
    l.keep = keep;
    if (l.recorder.state !== 'inactive') l.recorder.stop();
    else release();
  };

  return (
    <Stack gap={6} data-testid="sample-recorder" data-state={recording ? 'recording' : 'idle'}>
      {recording ? (
        <>
          <Group gap="sm" wrap="wrap">
            <Text size="sm" fw={600} ff="monospace" data-testid="record-clock" data-seconds={Math.floor(seconds)}>
              {clock(seconds)} / {clock(RECORD_MAX_SECONDS)}
            </Text>
            <Button
              size="xs"
              color="red"
              leftSection={<IconPlayerStopFilled size={14} />}
              onClick={() => stop(true)}
              data-testid="record-stop"
            >
              {t('design.recordStop')}
            </Button>
            <Button
              size="xs"
              variant="subtle"
              leftSection={<IconX size={14} />}
              onClick={() => stop(false)}
              data-testid="record-cancel"
            >
              {t('design.recordCancel')}
            </Button>
          </Group>
          <Progress
            value={level}
            aria-label={t('design.recordLevel')}
            data-testid="record-level"
            data-level={level}
            size="sm"
            color={level > 90 ? 'red' : 'green'}
          />
        </>
      ) : (
        <Group gap="sm" wrap="wrap">
          <Button
            variant="light"
            leftSection={<IconMicrophone size={16} />}
            onClick={() => void start()}
            disabled={disabled}
            data-testid="record-start"
          >
            {t('design.record')}
          </Button>
          <Text size="xs" c="dimmed">
            {t('design.recordHint')}
          </Text>
        </Group>
      )}
      {problem && (
        <Text size="sm" c="red" data-testid="record-error">
          {problem}
        </Text>
      )}
    </Stack>
  );
}
