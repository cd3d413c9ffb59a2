/**
 * The threads beside the server's event loop run below it: the encoder at ENCODER_NICE, synthesis workers at
 * BACKGROUND_NICE (Linux keeps a nice value per thread; /proc/self/task/<tid>/stat shows each thread's).
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EncoderHost } from '../src/audio/encoder-host.ts';
import { BACKGROUND_NICE, ENCODER_NICE } from '../src/threads/priority.ts';

/** The nice value of every thread of this process, by thread id. */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state: nice is the 19th field overall.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(tid), Number(fields[16]));
  }
  return nices;
}

const host = new EncoderHost();
afterAll(() => host.close());

describe.runIf(process.platform === 'linux')('thread priorities', () => {
  it('runs the encoder thread below the event loop and above the synthesis workers', async () => {
    const before = threadNices();
    const mine = before.get(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()))!;
    await host.encode(new Float32Array(24_000).fill(0.1), 24_000, 'mp3');
    const started = [...threadNices()].filter(([tid]) => !before.has(tid));
    // The encoder thread, new since, runs at ENCODER_NICE (or at the test's own, if that is already lower).
    expect(started.map(([, nice]) => nice)).toContain(Math.max(ENCODER_NICE, mine));
    expect(ENCODER_NICE).toBeGreaterThan(0);
    expect(ENCODER_NICE).toBeLessThan(BACKGROUND_NICE);
  });
});
