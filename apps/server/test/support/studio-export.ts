import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffprobe from '@ffprobe-installer/ffprobe';
import { createSpeech, FFMPEG } from '@polyvox/speech';
import { parseWavHeader } from '@polyvox/speech/formats';
import type { Storage } from '../../src/platform/storage.js';
import type { SnapshotManifest } from '../../src/studio/snapshot.js';

const run = promisify(execFile);

type Paragraph = SnapshotManifest['chapters'][number]['paragraphs'][number];

/**
 * Paragraphs spoken by eSpeak NG through the speech package (watermarked with `key`, as the server's are), stored as
 * WAV under `prefix/`: the pieces a snapshot's manifest names.
 */
export async function speakParagraphs(storage: Storage, key: Uint8Array, prefix: string, texts: string[]): Promise<Paragraph[]> {
  const speech = await createSpeech({ poolSize: 1, warmup: false, cache: false, watermark: { key } });
  try {
    const out: Paragraph[] = [];
    for (const [i, text] of texts.entries()) {
      const res = await speech.synthesize({ text, voiceId: 'espeak:en-us', format: 'wav' });
      const info = parseWavHeader(res.audio)!;
      const samples = (res.audio.length - info.dataOffset) / 2;
      const audioKey = `${prefix}/p${i}.wav`;
      await storage.put(audioKey, res.audio);
      out.push({
        id: `par_${prefix.replace(/\W/g, '')}_${i}`,
        text,
        speaker: i % 2 ? 'Anna' : 'Narrator',
        voice_id: 'voice_espeak.en-us',
        audio_key: audioKey,
        audio_ms: (samples * 1000) / info.sampleRate,
        sample_rate: info.sampleRate,
        pause_after_ms: 400 + 100 * i,
        words: res.words.map((w) => ({ text: w.word, start: w.start, end: w.end })),
      });
    }
    return out;
  } finally {
    await speech.close();
  }
}

/** A small PNG (a coloured square) made by ffmpeg: a project's cover. */
export async function coverPng(): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'polyvox-cover-'));
  try {
    const file = path.join(dir, 'cover.png');
    await run(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=orange:s=64x64', '-frames:v', '1', file]);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface Probe {
  format: { duration: string; tags?: Record<string, string> };
  streams: { codec_type: string; codec_name: string; disposition?: { attached_pic?: number } }[];
  chapters: { start_time: string; end_time: string; tags?: { title?: string } }[];
}

/** ffprobe's view of a file: its format (duration, tags), streams and chapters. */
export async function probeFile(bytes: Buffer, ext: string): Promise<Probe> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'polyvox-probe-'));
  try {
    const file = path.join(dir, `in.${ext}`);
    await writeFile(file, bytes);
    const { stdout } = await run(ffprobe.path, [
      '-v',
      'error',
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      '-show_chapters',
      file,
    ]);
    return JSON.parse(stdout) as Probe;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Subtitle cue times (seconds) of an SRT or WebVTT file. */
export function cueTimes(text: string): { start: number; end: number }[] {
  const sec = (h: string, m: string, s: string, ms: string) => Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;
  return [...text.matchAll(/(\d\d):(\d\d):(\d\d)[,.](\d{3}) --> (\d\d):(\d\d):(\d\d)[,.](\d{3})/g)].map((m) => ({
    start: sec(m[1]!, m[2]!, m[3]!, m[4]!),
    end: sec(m[5]!, m[6]!, m[7]!, m[8]!),
  }));
}
