import { describe, expect, it } from 'vitest';
import { audioOfAnswer } from './response';

const b64 = (bytes: number[]) => btoa(String.fromCharCode(...bytes));

describe('audioOfAnswer', () => {
  it('takes audio as it is, in the type the server gave', () => {
    const body = new Uint8Array([0xff, 0xfb, 1, 2]);
    expect(audioOfAnswer('audio/mpeg', body, 'audio/wav')).toEqual({ bytes: body, type: 'audio/mpeg' });
  });

  it("joins the audio of a timed stream's lines of JSON, not the JSON itself", () => {
    const lines =
      `${JSON.stringify({ audio_base64: b64([1, 2]), alignment: null })}\n` +
      `${JSON.stringify({ audio_base64: b64([3]), alignment: null })}\n` +
      `${JSON.stringify({ audio_base64: '', alignment: null, marks: [] })}\n`;
    const out = audioOfAnswer('application/x-ndjson', new TextEncoder().encode(lines), 'audio/mpeg');
    expect([...out.bytes]).toEqual([1, 2, 3]);
    expect(out.type).toBe('audio/mpeg');
  });

  it('reads a whole timed file (one JSON object)', () => {
    const body = new TextEncoder().encode(JSON.stringify({ audio_base64: b64([9, 8, 7]), duration_seconds: 1 }));
    expect([...audioOfAnswer('application/json; charset=utf-8', body, 'audio/mpeg').bytes]).toEqual([9, 8, 7]);
  });
});
