import type { AudioFormat } from './types';
import { FORMAT_EXTENSION } from './audio/formats';

/**
 * A voice's name as part of a file name: letters, marks and digits of any script kept (a Chinese name stays readable);
 * every run of anything else (spaces, dots, brackets of any width, "·", what file systems refuse) one hyphen.
 */
export function fileNamePart(text: string, maxLength = 40): string {
  const cleaned = text
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
  const cut = [...cleaned].slice(0, maxLength).join('').replace(/-$/, '');
  return cut || 'voice';
}

function stamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** polyvox-<voice>-<yyyymmdd-hhmmss>.<ext>, e.g. polyvox-Sarah-Flite-20261123-141502.mp3 */
export function downloadFileName(voiceName: string, format: AudioFormat, at: Date = new Date()): string {
  return `polyvox-${fileNamePart(voiceName)}-${stamp(at)}.${FORMAT_EXTENSION[format]}`;
}
