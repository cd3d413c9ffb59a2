import { describe, expect, it } from 'vitest';
import { downloadFileName, fileNamePart } from './download-name';

const at = new Date(2026, 10, 23, 14, 5, 9);

describe('download file names', () => {
  it('names the voice, the time and the format', () => {
    expect(downloadFileName('Sarah (Flite)', 'mp3', at)).toBe('polyvox-Sarah-Flite-20261123-140509.mp3');
    expect(downloadFileName('Kal (Flite, 16 kHz)', 'wav', at)).toBe('polyvox-Kal-Flite-16-kHz-20261123-140509.wav');
    expect(downloadFileName('Mandarin', 'opus', at)).toBe('polyvox-Mandarin-20261123-140509.opus');
    expect(downloadFileName('Mandarin', 'pcm', at)).toBe('polyvox-Mandarin-20261123-140509.pcm');
  });

  it('keeps a Chinese name readable, without full-width brackets, middle dots or spaces', () => {
    expect(downloadFileName('中文（中国） · 女声 1', 'mp3', at)).toBe('polyvox-中文-中国-女声-1-20261123-140509.mp3');
    expect(fileNamePart('粵語【香港】・男聲…')).toBe('粵語-香港-男聲');
    expect(fileNamePart('Zoë «Français» — voix 2')).toBe('Zoë-Français-voix-2');
  });

  it('keeps letters of any script and removes what file systems refuse', () => {
    expect(fileNamePart('温柔姐姐')).toBe('温柔姐姐');
    expect(fileNamePart('a/b\\c:d*e?f"g<h>i|j')).toBe('a-b-c-d-e-f-g-h-i-j');
    expect(fileNamePart('..hidden..')).toBe('hidden');
    expect(fileNamePart('tab\there\u0000')).toBe('tab-here');
  });

  it('falls back to "voice" and keeps names short', () => {
    expect(fileNamePart('  ***  ')).toBe('voice');
    expect(fileNamePart('')).toBe('voice');
    expect([...fileNamePart('字'.repeat(100))].length).toBe(40);
    expect(fileNamePart('a '.repeat(30), 5)).toBe('a-a-a');
  });
});
