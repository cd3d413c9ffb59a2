/**
 * @polyvox/speech/formats: the audio formats the platform reads and writes, written against plain typed arrays
 * (no Buffer, no Node modules) so the server and the console (in the browser) share them: 16-bit PCM, the WAV
 * container, G.711 μ-law and A-law, polyphase resampling (whole or streamed), MPEG Layer III frame headers, and the
 * GB 45438-2025 `AIGC` label in each container.
 */
export { concatFloat32, floatToInt16, int16ToFloat, Int16Chunks, trimSilence } from './pcm.ts';
export { wavHeader, pcmToWav, int16FromParts, encodeWav, decodeWav, parseWavHeader, fixWavSizes } from './wav.ts';
export type { WavInfo } from './wav.ts';
export { linearToUlaw, linearToAlaw, G711Encoder } from './g711.ts';
export type { G711Law } from './g711.ts';
export { resamplePolyphase, PolyphaseStream, Pcm16Resampler } from './polyphase.ts';
export {
  parseHeader as parseMp3Header,
  countFrames as countMp3Frames,
  infoFrame as mp3InfoFrame,
  id3Size,
  firstMp3Frame,
  mp3Seconds,
  LAME_ENCODER_DELAY,
} from './mp3.ts';
export type { FrameHeader as Mp3FrameHeader, Mp3Frame } from './mp3.ts';
export {
  AIGC_KEYS,
  AIGC_FIELD,
  AIGC_LABEL_GENERATED,
  aigcJson,
  parseAigc,
  withAigc,
  readAigcValues,
  sniffContainer,
  mp3AigcTag,
  wavWithInfo,
  readWavInfo,
  readId3Txxx,
  opusWithComments,
  readOpusComments,
} from './aigc.ts';
export type { AigcKey, AigcRecord, LabelledContainer } from './aigc.ts';
export { AudioPayload, audioPayload } from './payload.ts';
