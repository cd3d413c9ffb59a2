import type { AudioFormat } from './types';
import { FORMAT_EXTENSION } from './audio/formats';

/** Characters that no common file system takes in a name, plus control characters. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\\/:*?"<>|\u0000-\u001f\u007f]/g;

/** A voice's name as part of a file name: letters of any script kept, the rest hyphenated. */
export function fileNamePart(text: string, maxLength = 40): string {
  const cleaned = text
    .normalize('NFC')
    .replace(FORBIDDEN, ' ')
    .replace(/[()[\]{},;'`~!@#$%^&=+]/g, ' ')
    .trim()
    .replace(/[\s.]+/g, '-')
    .replace(/-+/g, '-')
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
