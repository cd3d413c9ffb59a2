import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav, withAigc } from '@polyvox/speech/formats';
import { C2paFileSigner } from '../../src/provenance/c2pa-signer.ts';
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

/** Two seconds of a tone at 24 kHz. */
function wav(): Buffer {
  const samples = new Float32Array(48_000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 24_000));
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
});
