/**
 * The socket's mp3 messages with `sync_alignment`: cut between frames, each message's characters timed from where its
 * audio starts once decoded (checked against ffmpeg decoding the messages before it).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSpeech, FFMPEG } from '@polyvox/speech';
import { parseMp3Header } from '@polyvox/speech/formats';
import { audioParts } from '../../src/synthesis/realtime/audio-parts.js';

/** Samples ffmpeg decodes from these mp3 bytes (it skips the delay the Info frame gives). */
async function decodedSamples(bytes: Buffer): Promise<number> {
  const run = promisify(execFile)(
    FFMPEG,
    ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-f', 's16le', '-ac', '1', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 << 20,
    },
  );
  run.child.stdin!.end(bytes);
  return (await run).stdout.length / 2;
}

describe('mp3 messages with alignment', () => {
  it("cut between frames, each message's characters timed from its own decoded start", async () => {
    const speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
    try {
      const text = 'The morning train left the station slowly, carrying travellers towards the distant mountains.';
      const r = await speech.synthesize({ text, voiceId: 'espeak:en-us', format: 'mp3', timings: true });
      const audio = Buffer.from(r.audio);
      const parts = audioParts(audio, r.durationSec, r.timings, 'mp3');
      expect(parts.length).toBeGreaterThanOrEqual(3);
      expect(Buffer.concat(parts.map((p) => p.audio)).equals(audio)).toBe(true);
      const rate = parseMp3Header(parts[1]!.audio, 0)!.sampleRate;
      const a = r.timings!.alignment;
      let before = Buffer.alloc(0);
      let next = 0;
      for (const [j, p] of parts.entries()) {
        if (j) expect(parseMp3Header(p.audio, 0), `message ${j} starts with a frame`).toBeDefined();
        // Where this message's audio starts: what the messages before it decode to.
        const from = j ? (await decodedSamples(before)) / rate : 0;
        for (const [i, c] of p.alignment!.chars.entries()) {
          expect(c).toBe(a.characters[next]);
          expect(Math.abs(from + p.alignment!.charStartTimesMs[i]! / 1000 - a.character_start_times_seconds[next]!)).toBeLessThan(
            0.001,
          );
          next++;
        }
        before = Buffer.concat([before, p.audio]);
      }
      expect(next).toBe(a.characters.length);
    } finally {
      await speech.close();
    }
  });

  it('cut by bytes when the file is not mp3 frames', () => {
    const junk = Buffer.alloc(3000, 7);
    const parts = audioParts(junk, 2.5, undefined, 'mp3');
    expect(parts).toHaveLength(3);
    expect(Buffer.concat(parts.map((p) => p.audio)).equals(junk)).toBe(true);
    expect(parts.every((p) => p.alignment === null)).toBe(true);
  });
});
