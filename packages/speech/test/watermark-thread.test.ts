import { describe, expect, it } from 'vitest';
import { detectInThread, detectionsQueued, detectWatermark, embedWatermark } from '../src/watermark/index.ts';
import { ljSamples } from './support/fixtures.ts';

const KEY = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 255);

/** The LJ recordings joined and taken at 16 kHz: `seconds` of one human voice. */
function lj(seconds: number): Float32Array {
  return ljSamples(16000, seconds);
}

/** How many times the event loop comes round while `work` is pending. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0,
    done = false;
  const spin = (): void => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    done = true;
  }
}

describe('the watermark search in its own thread', () => {
  it('gives the answer the search gives in the caller, while the event loop keeps turning', async () => {
    const host = lj(20);
    const marked = embedWatermark(host, 16000, { key: KEY, payload: 0xdeadbeef });
    for (const x of [marked, host]) {
      const here = detectWatermark(x, 16000, KEY, { payload: true });
      expect(here.payload).toBe(x === marked ? 0xdeadbeef : null);
      // The samples' buffer moves to the thread: the caller's copy goes.
      const copy = x.slice();
      const there = await turnsDuring(detectInThread(copy, 16000, KEY, { payload: true }));
      expect(there.value).toEqual(here);
      expect(copy.length).toBe(0);
      // An unmarked clip takes the whole search (a good part of a second): the loop turns all along.
      if (x === host) expect(there.turns).toBeGreaterThan(20);
    }
    expect(detectionsQueued()).toBe(0);
  });

  it('fails a search that throws and one that is aborted, and takes the next one as before', async () => {
    const x = lj(6);
    const expected = detectWatermark(x, 16000, KEY);
    await expect(detectInThread(x.slice(), -5, KEY)).rejects.toMatchObject({ code: 'INTERNAL' });
    const stop = new AbortController();
    const aborted = detectInThread(x.slice(), 16000, KEY, { signal: stop.signal });
    const behind = detectInThread(x.slice(), 16000, KEY);
    expect(detectionsQueued()).toBe(2);
    stop.abort(new Error('the client left'));
    await expect(aborted).rejects.toThrow('the client left');
    // The thread goes with the search it was running: what waited behind it fails too, and says why.
    await expect(behind).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(detectionsQueued()).toBe(0);
    expect(await detectInThread(x.slice(), 16000, KEY)).toEqual(expected);
  });
});
