/** The real speech recordings kept in the repository (`fixtures/speech`, public domain), and samples made from them. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FFMPEG } from '../../src/audio/ffmpeg.ts';
import { decodeWav, resamplePolyphase } from '../../src/formats/index.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const SPEECH_FIXTURES = process.env.SPEECH_FIXTURES ?? path.resolve(repoRoot, 'fixtures/speech');
export const fixture = (name: string): string => path.join(SPEECH_FIXTURES, name);

export const LJ_FILES = Array.from({ length: 8 }, (_, i) => fixture(`LJ001-000${i + 1}.wav`));
export const JFK_TEXT =
  'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';

/** The LJ recordings (22,050 Hz) joined in memory, the first `seconds` taken at `rate`: one human voice. */
export function ljSamples(rate: number, seconds: number): Float32Array {
  const parts = LJ_FILES.map((f) => {
    const b = readFileSync(f);
    return decodeWav(new Uint8Array(b.buffer, b.byteOffset, b.length)).samples;
  });
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return resamplePolyphase(all.subarray(0, Math.round(seconds * 22050)), 22050, rate);
}

/** The eight LJ files joined into one sample of about 50 s (ffmpeg's concat filter), made once per run. */
export function joinedLj(dir = path.join(tmpdir(), `polyvox-fixtures-${process.pid}`)): string {
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'lj-joined.wav');
  if (!existsSync(out)) {
    const inputs = LJ_FILES.flatMap((f) => ['-i', f]);
    const filter = `${LJ_FILES.map((_, i) => `[${i}:a]`).join('')}concat=n=${LJ_FILES.length}:v=0:a=1`;
    execFileSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', ...inputs, '-filter_complex', filter, out]);
  }
  return out;
}
