/**
 * Tiny sherpa-onnx models in the exact formats the engine reads (ONNX graph + metadata, tokens,
 * voices), built by the tests: no download anywhere. They "speak" a sine tone whose length follows
 * the number of tokens and the speed, and whose pitch follows the speaker (VITS) or the voice
 * vector (Kokoro), so tests can check that the loader wires text, speaker, speed and vectors through.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataType, encodeModel, type Node, type Tensor } from './onnx-writer.ts';

export const TINY_RATE = 16000;
/** Seconds of audio per input token at speed 1. */
export const TINY_SECONDS_PER_TOKEN = 0.05;
/** VITS: F0 = 110 Hz + 60 Hz × speaker id. */
export const vitsSpeakerHz = (sid: number): number => 110 + 60 * sid;

const f = (name: string, v: number): Tensor => ({ name, type: DataType.FLOAT, dims: [], floats: [v] });
const i64 = (name: string, v: number[], dims = [v.length]): Tensor => ({ name, type: DataType.INT64, dims, ints: v });

/** tone = 0.3·sin(2π·f0·t/sr) for t < tokens·hop·lengthScale, shaped [1, 1, T]. */
function toneNodes(tokens: string, lengthScale: string, f0: string): Node[] {
  return [
    { op: 'Shape', inputs: [tokens], outputs: ['shape'] },
    { op: 'Gather', inputs: ['shape', 'one_i'], outputs: ['n'], attrs: { axis: 0 } },
    { op: 'Cast', inputs: ['n'], outputs: ['nf'], attrs: { to: DataType.FLOAT } },
    { op: 'ReduceSum', inputs: [lengthScale], outputs: ['ls'], attrs: { keepdims: 0 } },
    { op: 'Mul', inputs: ['nf', 'hop'], outputs: ['len0'] },
    { op: 'Mul', inputs: ['len0', 'ls'], outputs: ['len'] },
    { op: 'Floor', inputs: ['len'], outputs: ['lenf'] },
    { op: 'Range', inputs: ['zero', 'lenf', 'onef'], outputs: ['t'] },
    { op: 'Mul', inputs: [f0, 'omega'], outputs: ['w'] },
    { op: 'Mul', inputs: ['t', 'w'], outputs: ['phase'] },
    { op: 'Sin', inputs: ['phase'], outputs: ['s'] },
    { op: 'Mul', inputs: ['s', 'amp'], outputs: ['s2'] },
    { op: 'Reshape', inputs: ['s2', 'outshape'], outputs: ['audio'] },
  ];
}

const toneConstants = (): Tensor[] => [
  i64('one_i', [1], []),
  f('hop', TINY_SECONDS_PER_TOKEN * TINY_RATE),
  f('zero', 0),
  f('onef', 1),
  f('omega', (2 * Math.PI) / TINY_RATE),
  f('amp', 0.3),
  i64('outshape', [1, 1, -1]),
];

const CHARS = " abcdefghijklmnopqrstuvwxyz.,!?'";
/** Kokoro reads eSpeak's IPA: give the common symbols ids so no phoneme is skipped. */
const IPA = CHARS + 'ˈˌːəɪʊɛæɑɔʌɜɐðθʃʒŋɹɾʔɚɝᵻçɡʧʤ';
/** Piper-style models also name their pad, start and end symbols (_ ^ $) and more punctuation. */
const PIPER = `_^$${IPA};:¡¿—…"«»“”()-`;

/** A multi-speaker VITS model with a character frontend (the format of Coqui-style models). */
export function writeTinyVits(dir: string, speakers = 3): { model: string; tokens: string } {
  mkdirSync(dir, { recursive: true });
  const model = path.join(dir, 'model.onnx');
  const tokens = path.join(dir, 'tokens.txt');
  const nodes: Node[] = [
    { op: 'Cast', inputs: ['sid'], outputs: ['sidf'], attrs: { to: DataType.FLOAT } },
    { op: 'Mul', inputs: ['sidf', 'step'], outputs: ['sidhz'] },
    { op: 'Add', inputs: ['sidhz', 'base'], outputs: ['f0'] },
    ...toneNodes('x', 'length_scale', 'f0'),
  ];
  writeFileSync(
    model,
    encodeModel({
      inputs: [
        { name: 'x', type: DataType.INT64, shape: [1, 'L'] },
        { name: 'x_length', type: DataType.INT64, shape: [1] },
        { name: 'noise_scale', type: DataType.FLOAT, shape: [1] },
        { name: 'length_scale', type: DataType.FLOAT, shape: [1] },
        { name: 'noise_scale_w', type: DataType.FLOAT, shape: [1] },
        { name: 'sid', type: DataType.INT64, shape: [1] },
      ],
      outputs: [{ name: 'audio', type: DataType.FLOAT, shape: [1, 1, 'T'] }],
      nodes,
      initializers: [...toneConstants(), f('step', 60), f('base', 110)],
      metadata: {
        model_type: 'vits',
        comment: 'tiny test model',
        language: 'English',
        sample_rate: TINY_RATE,
        n_speakers: speakers,
        add_blank: 0,
        frontend: 'characters',
        punctuation: '. , ! ?',
      },
    }),
  );
  writeFileSync(tokens, [...CHARS].map((c, i) => `${c} ${i}`).join('\n') + '\n');
  return { model, tokens };
}

export const KOKORO_STYLE_DIM = 8;
export const KOKORO_MAX_TOKENS = 64;

/**
 * A Kokoro model: inputs tokens / style / speed; F0 = style[0] (Hz), so a blend of voice vectors
 * is audible as the weighted mean pitch. `speakerHz` gives each speaker's F0.
 */
export function writeTinyKokoro(
  dir: string,
  speakerHz: number[],
  names?: string[],
  version = 1,
): { model: string; voices: string; tokens: string; lexicon?: string } {
  const files = writeStyleModel(dir, speakerHz, names, 'kokoro', version);
  if (version < 2) return files;
  // Kokoro v1.0 and later (metadata version 2) are read with a multi-language lexicon: one of a single word.
  // Only they get one: a lexicon beside an older model would join the lexicons its folder is read with.
  const lexicon = path.join(dir, 'lexicon.txt');
  writeFileSync(lexicon, 'ok ə ʊ k\n');
  return { ...files, lexicon };
}

/**
 * A Kitten model: Kokoro's inputs, but one style vector per speaker (`style_dim` 1,D; voices.bin speakers × D
 * floats), as sherpa-onnx's offline-tts-kitten-model.cc reads it.
 */
export function writeTinyKitten(
  dir: string,
  speakerHz: number[],
  names: string[],
): { model: string; voices: string; tokens: string } {
  return writeStyleModel(dir, speakerHz, names, 'kitten');
}

function writeStyleModel(
  dir: string,
  speakerHz: number[],
  names: string[] | undefined,
  kind: 'kokoro' | 'kitten',
  version = 1,
): { model: string; voices: string; tokens: string } {
  const perSpeaker = kind === 'kokoro' ? KOKORO_MAX_TOKENS : 1;
  mkdirSync(dir, { recursive: true });
  const model = path.join(dir, 'model.onnx');
  const voices = path.join(dir, 'voices.bin');
  const tokens = path.join(dir, 'tokens.txt');
  const nodes: Node[] = [
    { op: 'Slice', inputs: ['style', 'sl_start', 'sl_end', 'sl_axes'], outputs: ['f0_2d'] },
    { op: 'Reshape', inputs: ['f0_2d', 'one_shape'], outputs: ['f0'] },
    { op: 'Div', inputs: ['onef', 'speed'], outputs: ['inv_speed'] },
    ...toneNodes('tokens', 'inv_speed', 'f0'),
  ];
  writeFileSync(
    model,
    encodeModel({
      inputs: [
        { name: 'tokens', type: DataType.INT64, shape: [1, 'L'] },
        { name: 'style', type: DataType.FLOAT, shape: [1, KOKORO_STYLE_DIM] },
        { name: 'speed', type: DataType.FLOAT, shape: [1] },
      ],
      outputs: [{ name: 'audio', type: DataType.FLOAT, shape: [1, 1, 'T'] }],
      nodes,
      initializers: [...toneConstants(), i64('sl_start', [0]), i64('sl_end', [1]), i64('sl_axes', [1]), i64('one_shape', [1])],
      metadata: {
        model_type: kind === 'kokoro' ? 'kokoro' : 'kitten-tts',
        sample_rate: TINY_RATE,
        version,
        n_speakers: speakerHz.length,
        has_espeak: 1,
        voice: 'en-us',
        style_dim: kind === 'kokoro' ? `${KOKORO_MAX_TOKENS},1,${KOKORO_STYLE_DIM}` : `1,${KOKORO_STYLE_DIM}`,
        speaker_names: (names ?? speakerHz.map((_, i) => `s${i}`)).join(','),
      },
    }),
  );
  const floats = new Float32Array(speakerHz.length * perSpeaker * KOKORO_STYLE_DIM);
  speakerHz.forEach((hz, s) => {
    for (let t = 0; t < perSpeaker; t++) {
      const base = (s * perSpeaker + t) * KOKORO_STYLE_DIM;
      floats[base] = hz;
      for (let k = 1; k < KOKORO_STYLE_DIM; k++) floats[base + k] = Math.sin(s + k);
    }
  });
  writeFileSync(voices, Buffer.from(floats.buffer));
  writeFileSync(tokens, [...IPA].map((c, i) => `${c} ${i}`).join('\n') + '\n');
  return { model, voices, tokens };
}

/** Matcha: the acoustic model makes a mel of 4 frames per token whose value encodes the F0 (f0 / 1000). */
export const MATCHA_HZ = 200;
const MATCHA_HOP = 200;
const MATCHA_FRAMES_PER_TOKEN = 4;

export function writeTinyMatcha(dir: string): { acousticModel: string; vocoder: string; tokens: string } {
  mkdirSync(dir, { recursive: true });
  const acousticModel = path.join(dir, 'acoustic.onnx');
  const vocoder = path.join(dir, 'hifigan.onnx');
  const tokens = path.join(dir, 'tokens.txt');
  writeFileSync(
    acousticModel,
    encodeModel({
      inputs: [
        { name: 'x', type: DataType.INT64, shape: [1, 'L'] },
        { name: 'x_length', type: DataType.INT64, shape: [1] },
        { name: 'noise_scale', type: DataType.FLOAT, shape: [1] },
        { name: 'length_scale', type: DataType.FLOAT, shape: [1] },
      ],
      outputs: [{ name: 'mel', type: DataType.FLOAT, shape: [1, 80, 'F'] }],
      nodes: [
        { op: 'Shape', inputs: ['x'], outputs: ['shape'] },
        { op: 'Gather', inputs: ['shape', 'one_i'], outputs: ['n'], attrs: { axis: 0 } },
        { op: 'Cast', inputs: ['n'], outputs: ['nf'], attrs: { to: DataType.FLOAT } },
        { op: 'Mul', inputs: ['nf', 'fpt'], outputs: ['f0'] },
        { op: 'Mul', inputs: ['f0', 'length_scale'], outputs: ['f1'] },
        { op: 'Floor', inputs: ['f1'], outputs: ['f2'] },
        { op: 'Cast', inputs: ['f2'], outputs: ['frames'], attrs: { to: DataType.INT64 } },
        { op: 'Concat', inputs: ['one_80', 'frames'], outputs: ['melshape'], attrs: { axis: 0 } },
        { op: 'Expand', inputs: ['value', 'melshape'], outputs: ['mel'] },
      ],
      initializers: [
        i64('one_i', [1], []),
        f('fpt', MATCHA_FRAMES_PER_TOKEN),
        i64('one_80', [1, 80]),
        { name: 'value', type: DataType.FLOAT, dims: [1, 1, 1], floats: [MATCHA_HZ / 1000] },
      ],
      metadata: {
        model_type: 'matcha-tts',
        sample_rate: TINY_RATE,
        n_speakers: 1,
        has_espeak: 1,
        use_eos_bos: 0,
        pad_id: 0,
        voice: 'en-us',
        version: 1,
      },
    }),
  );
  writeFileSync(
    vocoder,
    encodeModel({
      inputs: [{ name: 'mel', type: DataType.FLOAT, shape: [1, 80, 'F'] }],
      outputs: [{ name: 'audio', type: DataType.FLOAT, shape: [1, 'T'] }],
      nodes: [
        { op: 'Shape', inputs: ['mel'], outputs: ['shape'] },
        { op: 'Gather', inputs: ['shape', 'two_i'], outputs: ['frames'], attrs: { axis: 0 } },
        { op: 'Cast', inputs: ['frames'], outputs: ['ff'], attrs: { to: DataType.FLOAT } },
        { op: 'Mul', inputs: ['ff', 'hop'], outputs: ['len'] },
        { op: 'Range', inputs: ['zero', 'len', 'onef'], outputs: ['t'] },
        { op: 'ReduceMean', inputs: ['mel'], outputs: ['m'], attrs: { keepdims: 0 } },
        { op: 'Mul', inputs: ['m', 'thousand'], outputs: ['hz'] },
        { op: 'Mul', inputs: ['hz', 'omega'], outputs: ['w'] },
        { op: 'Mul', inputs: ['t', 'w'], outputs: ['phase'] },
        { op: 'Sin', inputs: ['phase'], outputs: ['s'] },
        { op: 'Mul', inputs: ['s', 'amp'], outputs: ['s2'] },
        { op: 'Reshape', inputs: ['s2', 'outshape'], outputs: ['audio'] },
      ],
      initializers: [
        i64('two_i', [2], []),
        f('hop', MATCHA_HOP),
        f('zero', 0),
        f('onef', 1),
        f('thousand', 1000),
        f('omega', (2 * Math.PI) / TINY_RATE),
        f('amp', 0.3),
        i64('outshape', [1, -1]),
      ],
      metadata: { model_type: 'hifigan', sample_rate: TINY_RATE },
    }),
  );
  writeFileSync(tokens, [...PIPER].map((c, i) => `${c} ${i}`).join('\n') + '\n');
  return { acousticModel, vocoder, tokens };
}

/** Seconds of Matcha audio per token at speed 1. */
export const MATCHA_SECONDS_PER_TOKEN = (MATCHA_FRAMES_PER_TOKEN * MATCHA_HOP) / TINY_RATE;

/**
 * ZipVoice (zero-shot): the decoder's flow ends, whatever the noise it starts from, at the mean
 * log-mel spectrum of the reference sample; the vocoder turns a mel spectrum into a tone at its
 * spectral centroid. So the output's pitch is the reference's pitch: a clone in miniature.
 */
export const ZIPVOICE_RATE = 24000;
const ZV_MELS = 100;
const ZV_HOP = 256;
const ZV_FRAMES_PER_TOKEN = 3;

/** Centre frequencies of the mel filters sherpa-onnx computes for ZipVoice (HTK mel, 0 Hz to Nyquist). */
function melCentersHz(): number[] {
  const mel = (hz: number): number => 2595 * Math.log10(1 + hz / 700);
  const top = mel(ZIPVOICE_RATE / 2);
  return Array.from({ length: ZV_MELS }, (_, i) => 700 * (Math.pow(10, ((i + 1) * top) / (ZV_MELS + 1) / 2595) - 1));
}

export function writeTinyZipVoice(dir: string): {
  encoder: string;
  decoder: string;
  vocoder: string;
  tokens: string;
  lexicon: string;
} {
  mkdirSync(dir, { recursive: true });
  const lexicon = path.join(dir, 'lexicon.txt');
  writeFileSync(lexicon, 'hello h ɛ l o\nworld w ɜ l d\n');
  const encoder = path.join(dir, 'encoder.onnx');
  const decoder = path.join(dir, 'decoder.onnx');
  const vocoder = path.join(dir, 'vocoder.onnx');
  const tokens = path.join(dir, 'tokens.txt');
  writeFileSync(
    encoder,
    encodeModel({
      inputs: [
        { name: 'tokens', type: DataType.INT64, shape: [1, 'L'] },
        { name: 'prompt_tokens', type: DataType.INT64, shape: [1, 'P'] },
        { name: 'prompt_features_len', type: DataType.INT64, shape: [1] },
        { name: 'speed', type: DataType.FLOAT, shape: [1] },
      ],
      outputs: [{ name: 'text_condition', type: DataType.FLOAT, shape: [1, 'N', ZV_MELS] }],
      nodes: [
        { op: 'Shape', inputs: ['tokens'], outputs: ['shape'] },
        { op: 'Gather', inputs: ['shape', 'one_i'], outputs: ['l'], attrs: { axis: 0 } },
        { op: 'Cast', inputs: ['l'], outputs: ['lf'], attrs: { to: DataType.FLOAT } },
        { op: 'Mul', inputs: ['lf', 'fpt'], outputs: ['g0'] },
        { op: 'Div', inputs: ['g0', 'speed'], outputs: ['g1'] },
        { op: 'Floor', inputs: ['g1'], outputs: ['gen'] },
        { op: 'Cast', inputs: ['prompt_features_len'], outputs: ['plen'], attrs: { to: DataType.FLOAT } },
        { op: 'Add', inputs: ['plen', 'gen'], outputs: ['n'] },
        { op: 'Div', inputs: ['plen', 'n'], outputs: ['ratio'] },
        { op: 'Cast', inputs: ['n'], outputs: ['ni'], attrs: { to: DataType.INT64 } },
        { op: 'Concat', inputs: ['one_1', 'ni', 'mels'], outputs: ['outshape'], attrs: { axis: 0 } },
        { op: 'Reshape', inputs: ['ratio', 'shape111'], outputs: ['ratio3'] },
        { op: 'Expand', inputs: ['ratio3', 'outshape'], outputs: ['text_condition'] },
      ],
      initializers: [
        i64('one_i', [1], []),
        f('fpt', ZV_FRAMES_PER_TOKEN),
        i64('one_1', [1]),
        i64('mels', [ZV_MELS]),
        i64('shape111', [1, 1, 1]),
      ],
      metadata: { model_type: 'zipvoice', use_espeak: 1 },
    }),
  );
  writeFileSync(
    decoder,
    encodeModel({
      inputs: [
        { name: 't', type: DataType.FLOAT, shape: [1] },
        { name: 'x', type: DataType.FLOAT, shape: [1, 'N', ZV_MELS] },
        { name: 'text_condition', type: DataType.FLOAT, shape: [1, 'N', ZV_MELS] },
        { name: 'speech_condition', type: DataType.FLOAT, shape: [1, 'N', ZV_MELS] },
        { name: 'guidance_scale', type: DataType.FLOAT, shape: [1] },
      ],
      outputs: [{ name: 'v', type: DataType.FLOAT, shape: [1, 'N', ZV_MELS] }],
      nodes: [
        // speech_condition holds the prompt's features then zeros: its mean over all frames divided
        // by the prompt's share of the frames (which the encoder wrote into text_condition) is the
        // prompt's mean spectrum.
        { op: 'ReduceMean', inputs: ['text_condition'], outputs: ['ratio'], attrs: { keepdims: 0 } },
        { op: 'ReduceMean', inputs: ['speech_condition'], outputs: ['mean_all'], attrs: { axes: [1], keepdims: 1 } },
        { op: 'Div', inputs: ['mean_all', 'ratio'], outputs: ['target'] },
        { op: 'Sub', inputs: ['target', 'x'], outputs: ['diff'] },
        { op: 'Sub', inputs: ['onef', 't'], outputs: ['left'] },
        { op: 'Div', inputs: ['diff', 'left'], outputs: ['v'] },
      ],
      initializers: [f('onef', 1)],
      metadata: {
        version: 1,
        feat_dim: ZV_MELS,
        sample_rate: ZIPVOICE_RATE,
        n_fft: 1024,
        hop_length: ZV_HOP,
        window_length: 1024,
        num_mels: ZV_MELS,
      },
    }),
  );
  writeFileSync(
    vocoder,
    encodeModel({
      inputs: [{ name: 'mels', type: DataType.FLOAT, shape: [1, ZV_MELS, 'T'] }],
      outputs: [{ name: 'audio', type: DataType.FLOAT, shape: [1, 'S'] }],
      nodes: [
        { op: 'Exp', inputs: ['mels'], outputs: ['e'] },
        { op: 'ReduceMean', inputs: ['e'], outputs: ['band'], attrs: { axes: [0, 2], keepdims: 0 } },
        { op: 'Mul', inputs: ['band', 'centers'], outputs: ['weighted'] },
        { op: 'ReduceSum', inputs: ['weighted'], outputs: ['num'], attrs: { keepdims: 0 } },
        { op: 'ReduceSum', inputs: ['band'], outputs: ['den'], attrs: { keepdims: 0 } },
        { op: 'Div', inputs: ['num', 'den'], outputs: ['hz'] },
        { op: 'Shape', inputs: ['mels'], outputs: ['shape'] },
        { op: 'Gather', inputs: ['shape', 'two_i'], outputs: ['frames'], attrs: { axis: 0 } },
        { op: 'Cast', inputs: ['frames'], outputs: ['ff'], attrs: { to: DataType.FLOAT } },
        { op: 'Mul', inputs: ['ff', 'hop'], outputs: ['len'] },
        { op: 'Range', inputs: ['zero', 'len', 'onef'], outputs: ['t'] },
        { op: 'Mul', inputs: ['hz', 'omega'], outputs: ['w'] },
        { op: 'Mul', inputs: ['t', 'w'], outputs: ['phase'] },
        { op: 'Sin', inputs: ['phase'], outputs: ['s'] },
        { op: 'Mul', inputs: ['s', 'amp'], outputs: ['s2'] },
        { op: 'Reshape', inputs: ['s2', 'outshape'], outputs: ['audio'] },
      ],
      initializers: [
        { name: 'centers', type: DataType.FLOAT, dims: [ZV_MELS], floats: melCentersHz() },
        i64('two_i', [2], []),
        f('hop', ZV_HOP),
        f('zero', 0),
        f('onef', 1),
        f('omega', (2 * Math.PI) / ZIPVOICE_RATE),
        f('amp', 0.3),
        i64('outshape', [1, -1]),
      ],
      metadata: { model_type: 'hifigan', sample_rate: ZIPVOICE_RATE },
    }),
  );
  writeFileSync(tokens, [...PIPER].map((c, i) => `${c} ${i}`).join('\n') + '\n');
  return { encoder, decoder, vocoder, tokens, lexicon };
}

export const ZIPVOICE_SECONDS_PER_TOKEN = (ZV_FRAMES_PER_TOKEN * ZV_HOP) / ZIPVOICE_RATE;

/**
 * A Piper voice as Piper distributes it: NAME.onnx (inputs input / input_lengths / scales / sid, no
 * metadata) with NAME.onnx.json (its config: sample rate, eSpeak voice, language, speakers, phoneme
 * ids). F0 = 110 Hz + 60 Hz × speaker id, like the VITS model. With `sherpa`, the model carries the
 * metadata sherpa-onnx's scripts/piper/add_meta_data.py adds and a tokens.txt lies beside it, as in
 * sherpa-onnx's vits-piper-* releases. `espeakVoice`: the eSpeak NG voice it phonemizes with (its language).
 */
export function writeTinyPiper(
  dir: string,
  name: string,
  speakers: string[] = [],
  sherpa = false,
  espeakVoice = 'en-us',
): { model: string; config: string } {
  mkdirSync(dir, { recursive: true });
  const model = path.join(dir, `${name}.onnx`);
  const config = path.join(dir, `${name}.onnx.json`);
  const count = Math.max(1, speakers.length);
  const nodes: Node[] = [
    { op: 'Slice', inputs: ['scales', 'ls_start', 'ls_end', 'ls_axes'], outputs: ['length_scale'] },
    { op: 'Cast', inputs: ['sid'], outputs: ['sidf'], attrs: { to: DataType.FLOAT } },
    { op: 'Mul', inputs: ['sidf', 'step'], outputs: ['sidhz'] },
    { op: 'Add', inputs: ['sidhz', 'base'], outputs: ['f0'] },
    ...toneNodes('input', 'length_scale', 'f0'),
  ];
  writeFileSync(
    model,
    encodeModel({
      inputs: [
        { name: 'input', type: DataType.INT64, shape: [1, 'L'] },
        { name: 'input_lengths', type: DataType.INT64, shape: [1] },
        { name: 'scales', type: DataType.FLOAT, shape: [3] },
        { name: 'sid', type: DataType.INT64, shape: [1] },
      ],
      outputs: [{ name: 'audio', type: DataType.FLOAT, shape: [1, 1, 'T'] }],
      nodes,
      initializers: [
        ...toneConstants(),
        f('step', 60),
        f('base', 110),
        i64('ls_start', [1]),
        i64('ls_end', [2]),
        i64('ls_axes', [0]),
      ],
      metadata: sherpa
        ? {
            model_type: 'vits',
            comment: 'piper',
            language: 'English',
            voice: espeakVoice,
            version: 1,
            has_espeak: 1,
            n_speakers: count,
            sample_rate: TINY_RATE,
          }
        : {},
    }),
  );
  const ids = Object.fromEntries([...PIPER].map((c, i) => [c, [i]]));
  writeFileSync(
    config,
    JSON.stringify({
      audio: { sample_rate: TINY_RATE, quality: 'medium' },
      espeak: { voice: espeakVoice },
      language: { code: 'en_US', family: 'en', region: 'US' },
      inference: { noise_scale: 0.667, length_scale: 1, noise_w: 0.8 },
      phoneme_type: 'espeak',
      num_symbols: PIPER.length,
      num_speakers: count,
      speaker_id_map: Object.fromEntries(speakers.map((s, i) => [s, i])),
      phoneme_id_map: ids,
    }),
  );
  if (sherpa) writeFileSync(path.join(dir, 'tokens.txt'), [...PIPER].map((c, i) => `${c} ${i}`).join('\n') + '\n');
  return { model, config };
}
