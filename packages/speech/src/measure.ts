/**
 * @polyvox/speech/measure: the parts of the engine the benchmarks (bench/) measure one at a time, below the facade
 * `createSpeech` puts over them: the engines alone (local, Flite, GnuSpeech, the sherpa-onnx models, eSpeak NG's
 * runtime), the aligner and its word trimming, the encoders and ffmpeg, STOI, and the watermark detector's null model.
 *
 * Not the public API: the server, the console and the browser tests use `@polyvox/speech`, `/formats` and
 * `/watermark` only (dependency-cruiser's `speech-public-api-only`), and what is here may change with the engine.
 */
export { createLocalEngines } from './engines/local.ts';
export { FliteEngine } from './engines/flite.ts';
export { GnuSpeechEngine } from './engines/gnuspeech.ts';
export { SherpaEngine } from './engines/sherpa.ts';
export { espeakSynthesize } from './engines/espeak-runtime.ts';
export { alignByReference } from './pipeline/dtw-align.ts';
export { trimWordSilences } from './pipeline/timings.ts';
export { encodeAudio } from './audio/encoders.ts';
export { runFfmpeg } from './audio/ffmpeg.ts';
export { stoi } from './analysis/stoi.ts';
export { nullModel } from './watermark/calibration.ts';
