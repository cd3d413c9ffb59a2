/**
 * A third-party client of the realtime protocol, unchanged but for its base URL and key: LiveKit Agents' ElevenLabs
 * TTS (`@livekit/agents-plugin-elevenlabs`), which speaks `multi-stream-input` with a context per stream, `auto_mode`,
 * `sync_alignment`, a flush per sentence, `close_context`, and reads `audio`, `normalizedAlignment` and `isFinal`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeLogger, tts as lkTts } from '@livekit/agents';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import { Client } from '../support/client.js';
import { DIALECTS, type TestApp } from '../support/app.js';
import { keyedApp } from '../support/sdk.js';
import { eventually, heldHolds } from '../support/leave.js';

const VOICE = 'voice_espeak.en-us';
const REPLY = 'Hello there, this is Polyvox speaking through LiveKit. It streams one sentence after another!';

initializeLogger({ pretty: false, level: 'fatal' });

/** Pushes `text` word by word as an LLM would, then reads the stream to its end: its frames and timed words. */
async function speak(tts: elevenlabs.TTS, text: string) {
  const stream = tts.stream();
  for (const word of text.split(/(?<= )/)) stream.pushText(word);
  stream.flush();
  stream.endInput();
  const frames: { samples: number; rate: number; channels: number }[] = [];
  const words: { text: string; startTime: number; endTime: number }[] = [];
  let finals = 0;
  for await (const ev of stream) {
    if (ev === lkTts.SynthesizeStream.END_OF_STREAM) break;
    frames.push({ samples: ev.frame.samplesPerChannel, rate: ev.frame.sampleRate, channels: ev.frame.channels });
    for (const w of ev.timedTranscripts ?? []) words.push({ text: w.text, startTime: w.startTime ?? 0, endTime: w.endTime ?? 0 });
    if (ev.final) finals += 1;
  }
  return { frames, words, finals };
}

describe.each(DIALECTS)('LiveKit Agents ElevenLabs TTS against Polyvox (%s)', (dialect) => {
  let t: TestApp;
  let c: Client;
  let key: { id: string; key: string };
  let accountId: string;
  let tts: elevenlabs.TTS;
  beforeAll(async () => {
    ({ t, c, key } = await keyedApp(dialect, 100_000, 'livekit'));
    accountId = (await c.get('/accounts/me')).body.id;
    tts = new elevenlabs.TTS({ apiKey: key.key, baseURL: `${t.url}/v1`, voiceId: VOICE, encoding: 'pcm_22050' });
  });
  afterAll(async () => {
    await tts?.close();
    await t.close();
  });

  it('streams a reply pushed word by word: 22.05 kHz frames, word timings, the stream ends', async () => {
    const before = (await c.get('/accounts/me')).body.vip.credits as number;
    const { frames, words, finals } = await speak(tts, REPLY);
    expect(frames.length).toBeGreaterThan(0);
    expect(new Set(frames.map((f) => f.rate))).toEqual(new Set([22050]));
    const seconds = frames.reduce((s, f) => s + f.samples, 0) / 22050;
    expect(seconds).toBeGreaterThan(3);
    expect(finals).toBe(1);
    // Words of the reply, in order, each inside the audio.
    const said = words.map((w) => w.text).join('');
    expect(said.replace(/\s+/g, ' ').trim()).toContain('Hello there, this is Polyvox');
    // Timed from the audio, never before it. (The plugin joins each message's times as if they ran from the start of
    // the stream; ElevenLabs and Polyvox time each message from its own start, so a word's end may read as before its
    // start: the plugin's arithmetic, not the data.)
    for (const w of words) expect(w.startTime).toBeGreaterThanOrEqual(0);
    expect(await eventually(async () => (await heldHolds(t, accountId)).length === 0)).toBe(true);
    expect(before - ((await c.get('/accounts/me')).body.vip.credits as number)).toBeGreaterThan(0);
  });

  it('runs two streams in turn on the one socket it keeps, and its listVoices reads our voice list', async () => {
    const [a, b] = [await speak(tts, 'First turn of the agent.'), await speak(tts, 'Second turn, same socket.')];
    expect(a.frames.length).toBeGreaterThan(0);
    expect(b.frames.length).toBeGreaterThan(0);
    const voices = await tts.listVoices();
    expect(voices.some((v) => v.id === VOICE)).toBe(true);
  });

  it('synthesizes a whole text through its chunked (HTTP) path too', async () => {
    const frames: number[] = [];
    for await (const ev of tts.synthesize('A whole sentence at once.')) frames.push(ev.frame.samplesPerChannel);
    expect(frames.reduce((s, n) => s + n, 0) / 22050).toBeGreaterThan(1);
  });
});
