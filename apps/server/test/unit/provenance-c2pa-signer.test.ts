import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav, withAigc } from '@polyvox/speech/formats';
import { C2paFileSigner, OWN_THREAD_BYTES } from '../../src/provenance/c2pa-signer.ts';
import { c2paLoadedHere } from '../../src/provenance/c2pa-wasm.ts';
import { readC2paInThread } from '../../src/provenance/index.ts';
import type { ContentMark } from '../../src/provenance/service.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-c2pa-signer-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const mark = (produceId: string): ContentMark => ({
  produceId,
  createdAt: new Date('2026-05-01T12:00:00Z'),
  record: {
    Label: '1',
    ContentProducer: 'test-operator',
    ProduceID: produceId,
    ContentPropagator: '',
    PropagateID: '',
    ReservedCode1: '',
    ReservedCode2: '',
  },
  origin: {
    accountId: null,
    recordType: 'tts',
    voiceId: 'espeak:en-us',
    voiceKind: 'library',
    engine: 'espeak-ng',
    format: 'wav',
    payload: null,
  },
});

/** The threads of this process (Linux). */
const threads = (): number => fs.readdirSync('/proc/self/task').length;

/** Two seconds of a tone at 24 kHz (or `seconds`). */
function wav(seconds = 2): Buffer {
  const samples = new Float32Array(seconds * 24_000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 24_000));
  return Buffer.from(encodeWav(samples, 24_000));
}

describe('the C2PA file signer', () => {
  it('signs whole files in a thread of its own: c2pa-rs never runs on the event loop, and the files validate as before', async () => {
    const signer = await C2paFileSigner.open({ dataDir: scratch, organization: 'Polyvox test' });
    try {
      // Several at once, as concurrent requests ask: each comes back as its own signed file.
      const files = ['pv_thread_1', 'pv_thread_2', 'pv_thread_3'].map((id) => ({
        id,
        file: Buffer.from(withAigc(wav(), 'wav', mark(id).record)),
      }));
      const signed = await Promise.all(files.map(({ id, file }) => signer.sign(file, 'wav', mark(id))));
      for (const [i, out] of signed.entries()) {
        expect(out.length).toBeGreaterThan(files[i]!.file.length);
        const report = await readC2paInThread(out, 'audio/wav');
        expect(report).toMatchObject({ present: true, valid: true, produceId: files[i]!.id, voiceId: 'espeak:en-us' });
      }
      // The caller's bytes are its own still (copied to the thread, not moved).
      expect(files[0]!.file.length).toBeGreaterThan(0);
      expect(c2paLoadedHere()).toBe(false);
    } finally {
      await signer.close();
    }
  });

  it('signs files over OWN_THREAD_BYTES (Studio exports) one at a time, each in a thread that ends with it, and they validate', async () => {
    const signer = await C2paFileSigner.open({ dataDir: scratch, organization: 'Polyvox test' });
    try {
      const big = wav(Math.ceil(OWN_THREAD_BYTES / 48_000) + 5);
      expect(big.length).toBeGreaterThan(OWN_THREAD_BYTES);
      // The reader's thread started first, so the count below moves with the signing threads alone.
      await readC2paInThread(wav(), 'audio/wav');
      const before = threads();
      /** The most threads this process had while `work` ran. */
      const mostThreadsDuring = async <T>(work: Promise<T>): Promise<[number, T]> => {
        let most = threads();
        let settled = false;
        void work.finally(() => (settled = true)).catch(() => {});
        while (!settled) {
          most = Math.max(most, threads());
          await new Promise((r) => setTimeout(r, 5));
        }
        return [most, await work];
      };
      // One alone: threads of its own start for it.
      const [alone] = await mostThreadsDuring(signer.labelAndSign(big, 'wav', mark('pv_large_0')));
      expect(alone).toBeGreaterThan(before);
      expect(threads()).toBe(before);
      // Two at once, as two exports would ask: one after the other, so never more threads than for one.
      const signing = Promise.all([
        signer.labelAndSign(big, 'wav', mark('pv_large')),
        signer.labelAndSign(big, 'wav', mark('pv_large_2')),
      ]);
      const [most] = await mostThreadsDuring(signing);
      expect(most).toBe(alone);
      const [{ file, digest }, second] = await signing;
      // The threads ended with their files; the long-lived one stays.
      expect(threads()).toBe(before);
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
      expect(await readC2paInThread(file, 'audio/wav')).toMatchObject({ present: true, valid: true, produceId: 'pv_large' });
      expect(await readC2paInThread(second.file, 'audio/wav')).toMatchObject({ valid: true, produceId: 'pv_large_2' });
      // A small file still goes to the long-lived thread, which is alive and signs it.
      const small = await signer.sign(Buffer.from(withAigc(wav(), 'wav', mark('pv_small').record)), 'wav', mark('pv_small'));
      expect(await readC2paInThread(small, 'audio/wav')).toMatchObject({ present: true, valid: true, produceId: 'pv_small' });
    } finally {
      await signer.close();
    }
  });
});
