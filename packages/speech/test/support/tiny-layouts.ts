/**
 * Tiny models laid out as their releases are (see docs/models.md): sherpa-onnx's vits-piper-*, VITS,
 * Kokoro, Kitten, Matcha and ZipVoice archives' folders, and a Piper voice as Piper distributes it.
 * Used by the install tests (packed as releases) and the bench (discovery and real-time factor).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  writeTinyKitten,
  writeTinyKokoro,
  writeTinyMatcha,
  writeTinyPiper,
  writeTinyVits,
  writeTinyZipVoice,
} from './tiny-models.ts';

export interface TinyLayout {
  /** The release's name: its folder (or, for the Piper voice, its folder when installed). */
  name: string;
  family: 'vits-piper' | 'vits' | 'kokoro' | 'kitten' | 'matcha' | 'zipvoice' | 'piper';
  /** The model type discovery finds. */
  type: 'vits' | 'kokoro' | 'kitten' | 'matcha' | 'zipvoice';
  dir: string;
  /** A vocoder released apart (Matcha, ZipVoice): where it was written when `vocodersApart`. */
  vocoder?: string;
  /** Whether the native engine can speak with it (not with stub eSpeak NG data). */
  speaks: boolean;
}

/** A minimal eSpeak NG data folder: the files sherpa-onnx checks for. */
function espeakStub(dir: string): void {
  mkdirSync(path.join(dir, 'espeak-ng-data'), { recursive: true });
  for (const f of ['phontab', 'phonindex', 'phondata', 'intonations']) writeFileSync(path.join(dir, 'espeak-ng-data', f), f);
}

/**
 * One folder per layout under `root`. With `vocodersApart`, Matcha's and ZipVoice's vocoders are moved
 * out of their folders (as sherpa-onnx releases them) into `root`; with `espeakStubs`, the folders that
 * carry their own espeak-ng-data get a stub of it (enough for discovery, not for speaking).
 */
export function writeTinyLayouts(root: string, opts: { vocodersApart?: boolean; espeakStubs?: boolean } = {}): TinyLayout[] {
  const at = (n: string): string => path.join(root, n);
  const out: TinyLayout[] = [];
  writeTinyPiper(at('vits-piper-en_US-tiny-medium'), 'en_US-tiny-medium', ['alice', 'bob'], true);
  if (opts.espeakStubs) espeakStub(at('vits-piper-en_US-tiny-medium'));
  out.push({
    name: 'vits-piper-en_US-tiny-medium',
    family: 'vits-piper',
    type: 'vits',
    dir: at('vits-piper-en_US-tiny-medium'),
    speaks: !opts.espeakStubs,
  });
  writeTinyVits(at('vits-tiny'), 2);
  out.push({ name: 'vits-tiny', family: 'vits', type: 'vits', dir: at('vits-tiny'), speaks: true });
  writeTinyKokoro(at('kokoro-tiny-en'), [120, 240], ['af_heart', 'bm_george']);
  out.push({ name: 'kokoro-tiny-en', family: 'kokoro', type: 'kokoro', dir: at('kokoro-tiny-en'), speaks: true });
  const kitten = at('kitten-tiny-en');
  writeTinyKitten(kitten, [150, 220], ['expr-voice-2-m', 'expr-voice-2-f']);
  if (opts.espeakStubs) espeakStub(kitten);
  out.push({ name: 'kitten-tiny-en', family: 'kitten', type: 'kitten', dir: kitten, speaks: !opts.espeakStubs });
  writeTinyMatcha(at('matcha-tiny-en_US'));
  writeTinyZipVoice(at('zipvoice-tiny-zh-en'));
  const matcha: TinyLayout = {
    name: 'matcha-tiny-en_US',
    family: 'matcha',
    type: 'matcha',
    dir: at('matcha-tiny-en_US'),
    speaks: true,
  };
  const zipvoice: TinyLayout = {
    name: 'zipvoice-tiny-zh-en',
    family: 'zipvoice',
    type: 'zipvoice',
    dir: at('zipvoice-tiny-zh-en'),
    speaks: true,
  };
  if (opts.vocodersApart) {
    renameSync(path.join(matcha.dir, 'hifigan.onnx'), at('hifigan.onnx'));
    renameSync(path.join(zipvoice.dir, 'vocoder.onnx'), at('vocoder.onnx'));
    matcha.vocoder = at('hifigan.onnx');
    zipvoice.vocoder = at('vocoder.onnx');
  }
  out.push(matcha, zipvoice);
  // A Piper voice as rhasspy/piper-voices has it: NAME.onnx with NAME.onnx.json.
  writeTinyPiper(at('piper-en_GB-solo-low'), 'en_GB-solo-low');
  out.push({ name: 'piper-en_GB-solo-low', family: 'piper', type: 'vits', dir: at('piper-en_GB-solo-low'), speaks: true });
  return out;
}
