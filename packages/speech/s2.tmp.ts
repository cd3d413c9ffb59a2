import { createSpeech } from './src/speech.ts';
import { decodeAudio } from './src/audio/ffmpeg.ts';
const speech = await createSpeech({ poolSize: 2 });
const TEXT =
  'The morning train left the station slowly, carrying travellers towards the distant mountains. ' +
  'It stopped twice before noon. The valley opened wide, and the river ran beside the line.';
await speech.synthesize({ text: 'A first sentence teaches this voice its gain.', voiceId: 'espeak:en-us', format: 'mp3' } as any);
const whole = await speech.synthesize({ text: TEXT, voiceId: 'espeak:en-us', format: 'mp3' } as any);
console.log('whole', whole.durationSec, (await decodeAudio(whole.audio, 'mp3')).samples.length / 22050);
for (const timings of [false, true, false]) {
  const parts: Buffer[] = [];
  for await (const b of speech.synthesizeStream({ text: TEXT + (timings ? '' : ' x'), voiceId: 'espeak:en-us', format: 'mp3', timings, onTimings: () => {} } as any)) parts.push(b);
  const d = await decodeAudio(Buffer.concat(parts), 'mp3');
  console.log('stream', timings, d.samples.length / d.sampleRate, d.sampleRate, parts.length);
}
await speech.close();
