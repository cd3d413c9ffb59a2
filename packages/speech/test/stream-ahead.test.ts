/**
 * A stream's first sentence leaves as its engine makes it (pool/streamed.ts `synthesizeAhead`): its first fraction of
 * a second goes out before the sentence is complete, at the voice's learnt loudness gain, and the stream is the same
 * audio as the whole file, at the loudness target, with its timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../src/audio/ffmpeg.ts';
import { integratedLoudness, TARGET_LUFS } from '../src/dsp/loudness.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import type { Timings } from '../src/pipeline/timings.ts';

let speech: Speech;
beforeAll(async () => {
  speech = await createSpeech({ poolSize: 2 });
}, 90_000);
afterAll(() => speech.close());

const TEXT =
  'The morning train left the station slowly, carrying travellers towards the distant mountains. ' +
  'It stopped twice before noon. The valley opened wide, and the river ran beside the line.';

describe("a stream's first sentence", () => {
  it('leaves before its engine has finished it, once the voice has a learnt gain, as the same audio as the whole file', async () => {
    // Any earlier sentence of this voice teaches its gain (a one-sentence file here).
    await speech.synthesize({ text: 'A first sentence teaches this voice its gain.', voiceId: 'espeak:en-us', format: 'mp3' });
    const whole = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'mp3' });
    let done = 0;
    let doneAtFirstChunk = -1;
    let timings: Timings | undefined;
    const parts: Buffer[] = [];
    // With timings the cache is not read: the stream is made again.
    for await (const b of speech.synthesizeStream({
      text: TEXT,
      voiceId: 'espeak:en-us',
      format: 'mp3',
      timings: true,
      onTimings: (t) => (timings = t),
      onProgress: (p) => (done = p.done),
    })) {
      if (doneAtFirstChunk < 0) doneAtFirstChunk = done;
      parts.push(b);
    }
    // Audio left while no sentence was complete yet (before, the first sentence was made whole first).
    expect(doneAtFirstChunk).toBe(0);
    expect(done).toBe(3);
    const streamed = await decodeAudio(Buffer.concat(parts), 'mp3');
    const file = await decodeAudio(whole.audio, 'mp3');
    // The same length as the whole file (its sentences trimmed and paused alike), within two mp3 frames of 48 ms: a
    // stream and a file are encoded apart, and their encoder delay and last frame's padding differ (a run measured 74 ms).
    expect(Math.abs(streamed.samples.length / streamed.sampleRate - file.samples.length / file.sampleRate)).toBeLessThan(0.1);
    // As loud as the whole file (whose sentences are each normalized to the target), within EBU R 128's tolerance.
    const loudness = integratedLoudness(streamed.samples, streamed.sampleRate);
    expect(Math.abs(loudness - integratedLoudness(file.samples, file.sampleRate))).toBeLessThan(0.5);
    expect(Math.abs(loudness - TARGET_LUFS)).toBeLessThan(1.5);
    // Every character's time is known by the end, the first sentence's words where the whole file has them.
    expect(timings!.known).toEqual({ characters: [...TEXT].length, normalized: timings!.normalizedAlignment.characters.length });
    const first = timings!.words.find((w) => w.word.toLowerCase().startsWith('mountains'))!;
    const again = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'mp3', timings: true });
    const there = again.timings!.words.find((w) => w.word.toLowerCase().startsWith('mountains'))!;
    expect(Math.abs(first.start - there.start)).toBeLessThan(0.03);
  }, 120_000);
});
