/**
 * `--only studio-export`: the peak memory (RSS) of a whole book's M4B export, the "long book": about 100,000
 * characters, some two hours of eSpeak NG speech. A few paragraphs are spoken once and their WAVs stored (local
 * storage in a temporary folder); the manifest names them again and again, as a long book would name its own. The
 * export (apps/server/src/studio/export/m4b.ts: PCM through the speech package's encoder thread, which marks it, then
 * ffmpeg's pipe, AAC, chapters, cover) is read to its end and thrown away while the process's RSS is sampled every
 * 50 ms (the encoder thread's memory is this process's, counted). ffmpeg's own memory is its process's, not counted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSpeech } from '@polyvox/speech';
import { parseWavHeader } from '@polyvox/speech/formats';
import { localStorage } from '../apps/server/src/platform/storage.ts';
import type { SnapshotManifest } from '../apps/server/src/studio/snapshot.ts';
import { exportM4b } from '../apps/server/src/studio/export/m4b.ts';
import { encodePcm, exportBytes, gathered, SIGNED_EXPORT_BYTES } from '../apps/server/src/studio/export/audio.ts';
import { snapshotPcm } from '../apps/server/src/studio/export/pcm.ts';
import type { SpeechHost } from '../apps/server/src/speech/speech-host.ts';
import { C2paFileSigner } from '../apps/server/src/provenance/c2pa-signer.ts';
import { timeline } from '../apps/server/src/studio/export/timeline.ts';
import type { BenchRow } from './stats.js';

const TEXTS = [
  'The morning train left the station slowly, carrying travellers towards the distant mountains and the sea beyond them.',
  'Anna looked out of the window and counted the bridges, one after another, until the valley opened and the light changed.',
  'Nobody in the carriage spoke. A child slept against her mother, and an old man read the same page of his paper again.',
  'By noon the air was warmer, the fields were gold, and the conductor came through to say that they would soon arrive.',
];
/** STUDIO_EXPORT_CHARS sets the book's length (a longer book shows whether the peak stays flat). */
const TARGET_CHARACTERS = Number(process.env.STUDIO_EXPORT_CHARS) || 100_000;
const PARAGRAPHS_PER_CHAPTER = 30;

/** `work`'s result, its wall time, and the process's RSS before it and at its peak (sampled every 50 ms). */
async function sampled<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; before: number; peak: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - t0) / 1000, before, peak };
  } finally {
    clearInterval(sampler);
  }
}

export async function studioExportRows(): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'polyvox-bench-export-'));
  // Speaks the paragraphs, then marks the export's PCM on its encoder thread.
  const speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
  try {
    const storage = localStorage(dir);
    type Paragraph = SnapshotManifest['chapters'][number]['paragraphs'][number];
    const spoken: Paragraph[] = [];
    for (const [i, text] of TEXTS.entries()) {
      const res = await speech.synthesize({ text, voiceId: 'espeak:en-us', format: 'wav' });
      const info = parseWavHeader(res.audio)!;
      await storage.put(`bench/p${i}.wav`, res.audio);
      spoken.push({
        id: `par_${i}`,
        text,
        speaker: 'Narrator',
        voice_id: 'voice_espeak.en-us',
        audio_key: `bench/p${i}.wav`,
        audio_ms: ((res.audio.length - info.dataOffset) / 2 / info.sampleRate) * 1000,
        sample_rate: info.sampleRate,
        pause_after_ms: 600,
        words: res.words.map((w) => ({ text: w.word, start: w.start, end: w.end })),
      });
    }
    const paragraphs: Paragraph[] = [];
    for (let n = 0, i = 0; n < TARGET_CHARACTERS; i++) {
      const p = spoken[i % spoken.length]!;
      paragraphs.push({ ...p, id: `par_${i}` });
      n += p.text.length;
    }
    const chapters = [];
    for (let i = 0; i < paragraphs.length; i += PARAGRAPHS_PER_CHAPTER)
      chapters.push({
        id: `chap_${i}`,
        title: `Chapter ${chapters.length + 1}`,
        paragraphs: paragraphs.slice(i, i + PARAGRAPHS_PER_CHAPTER),
      });
    const manifest: SnapshotManifest = {
      project: {
        id: 'proj',
        name: 'Long book',
        title: 'A Long Book',
        author: 'Bench',
        language: 'en',
        cover_key: null,
        cover_type: null,
      },
      chapters,
    };
    const placed = timeline(chapters);
    const record = {
      Label: '1',
      ContentProducer: 'Polyvox',
      ProduceID: 'aigc_bench',
      ReservedCode1: '',
      ContentPropagator: '',
      PropagateID: '',
      ReservedCode2: '',
    };
    const m4b = await sampled(async () => {
      let bytes = 0;
      for await (const chunk of exportM4b(
        { storage, speech: { get: () => Promise.resolve(speech) } },
        manifest,
        placed,
        record,
        { key: randomBytes(32), payload: 1 },
        new AbortController().signal,
      ))
        bytes += chunk.length;
      return bytes;
    });
    const { before, peak, seconds, value: bytes } = m4b;
    const audioHours = placed.total / 24_000 / 3600;
    const MB = 1024 * 1024;

    // The largest signed export: the book's first chapters, as many as make an mp3 under SIGNED_EXPORT_BYTES, made
    // whole, then labelled and signed (C2PA) in a signing thread of its own, as apps/server/src/studio/export/audio.ts
    // does (its provenance row aside).
    let fits = chapters.length;
    while (fits > 1 && exportBytes('mp3', timeline(chapters.slice(0, fits)).total) > SIGNED_EXPORT_BYTES) fits--;
    const signedPart = timeline(chapters.slice(0, fits));
    const host = { get: () => Promise.resolve(speech) } as unknown as SpeechHost;
    const signer = await C2paFileSigner.open({ dataDir: dir, organization: 'Polyvox bench' });
    const mp3 = await sampled(async () => {
      let signedBytes = 0;
      const pcm = snapshotPcm(storage, signedPart.paragraphs, new AbortController().signal);
      const mark = { key: randomBytes(32), payload: 2 };
      for await (const file of gathered(encodePcm(host, pcm, 'mp3', signedPart.total, mark))) {
        const mark = {
          produceId: 'aigc_bench_mp3',
          record: { ...record, ProduceID: 'aigc_bench_mp3' },
          createdAt: new Date(),
          origin: {
            accountId: null,
            recordType: 'studio-export',
            voiceId: 'voice_espeak.en-us',
            voiceKind: 'library' as const,
            engine: 'studio',
            format: 'mp3',
            payload: 2,
          },
        };
        signedBytes = (await signer.labelAndSign(file, 'mp3', mark)).file.length;
      }
      return signedBytes;
    }).finally(() => signer.close());
    const { before: mp3Before, peak: mp3Peak, seconds: mp3Seconds, value: signedBytes } = mp3;
    global.gc?.();
    const mp3After = process.memoryUsage().rss;
    return [
      { metric: 'studio export: book characters', value: paragraphs.reduce((n, p) => n + p.text.length, 0), unit: 'chars' },
      { metric: 'studio export: book audio', value: Math.round(audioHours * 100) / 100, unit: 'h' },
      { metric: 'studio export: chapters', value: chapters.length, unit: '' },
      { metric: 'studio export: M4B size', value: Math.round((bytes / MB) * 10) / 10, unit: 'MB' },
      { metric: 'studio export: M4B wall time', value: Math.round(seconds * 10) / 10, unit: 's' },
      { metric: 'studio export: RSS before', value: Math.round(before / MB), unit: 'MB' },
      { metric: 'studio export: peak RSS during the M4B export', value: Math.round(peak / MB), unit: 'MB' },
      { metric: 'studio export: peak RSS growth', value: Math.round((peak - before) / MB), unit: 'MB' },
      {
        metric: `studio export: signed mp3 of ${fits} chapters, ${Math.round(signedPart.total / 24_000 / 60)} min (limit ${SIGNED_EXPORT_BYTES / MB} MB)`,
        value: Math.round((signedBytes / MB) * 10) / 10,
        unit: 'MB',
      },
      { metric: 'studio export: signed mp3, made and signed, wall time', value: Math.round(mp3Seconds * 10) / 10, unit: 's' },
      { metric: 'studio export: signed mp3, peak RSS growth', value: Math.round((mp3Peak - mp3Before) / MB), unit: 'MB' },
      {
        metric: 'studio export: signed mp3, RSS growth once done',
        value: Math.round((mp3After - mp3Before) / MB),
        unit: 'MB',
      },
    ];
  } finally {
    await speech.close();
    await rm(dir, { recursive: true, force: true });
  }
}
