/**
 * The espeak-ng-data folder on disk, copied once from the eSpeak NG package's virtual file
 * system. sherpa-onnx phonemizes Piper, Kokoro and Kitten models with eSpeak and needs this folder;
 * with it an operator's MODELS_DIR needs no copy of its own.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getEspeak } from './espeak-runtime.ts';

const SOURCE = '/usr/share/espeak-ng-data';
const MARKER = '.polyvox-complete';

export async function ensureEspeakDataDir(root = path.join(tmpdir(), 'polyvox-espeak-ng-data-0.3.5')): Promise<string> {
  if (existsSync(path.join(root, MARKER))) return root;
  const { module: m } = await getEspeak();
  const staging = `${root}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const copy = (src: string, dst: string): void => {
    mkdirSync(dst, { recursive: true });
    for (const name of m.FS.readdir(src) as string[]) {
      if (name === '.' || name === '..') continue;
      const s = `${src}/${name}`;
      if (m.FS.isDir(m.FS.stat(s).mode)) copy(s, path.join(dst, name));
      else writeFileSync(path.join(dst, name), m.FS.readFile(s) as Uint8Array);
    }
  };
  copy(SOURCE, staging);
  writeFileSync(path.join(staging, MARKER), '');
  try {
    renameSync(staging, root);
  } catch {
    // Another thread finished first: its copy is as good as ours.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(root, MARKER))) throw new Error(`cannot create ${root}`);
  }
  return root;
}
