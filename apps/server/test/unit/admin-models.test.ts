/**
 * `npm run admin -- models`: what the server finds in MODELS_DIR, and the folders it skips with the
 * file at fault, without a database.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runAdmin } from '../../src/admin/cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'polyvox-admin-models-'));
  // A Piper voice as Piper ships it: a model (here the smallest protobuf, ir_version only) and its JSON config.
  writeFileSync(path.join(dir, 'de_DE-tiny-low.onnx'), Buffer.from([0x08, 0x08]));
  writeFileSync(
    path.join(dir, 'de_DE-tiny-low.onnx.json'),
    JSON.stringify({
      audio: { sample_rate: 16000 },
      espeak: { voice: 'de' },
      language: { code: 'de_DE' },
      num_speakers: 2,
      speaker_id_map: { eva: 0, jan: 1 },
      phoneme_id_map: { _: [0], a: [1] },
    }),
  );
  mkdirSync(path.join(dir, 'kokoro-half'));
  writeFileSync(path.join(dir, 'kokoro-half', 'model.onnx'), 'not a model');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('admin models', () => {
  it('lists each model found and each folder skipped, naming the file at fault', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(
      ['models'],
      { MODELS_DIR: dir, DATA_DIR: dir, LOG_LEVEL: 'silent' },
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      },
    );
    expect(code).toBe(EXIT.ok);
    expect(out).toEqual(['de_DE-tiny-low  vits  de-DE, de  16000 Hz  found in de_DE-tiny-low.onnx', '  voices: eva, jan']);
    expect(err).toEqual([expect.stringMatching(/^skipped kokoro-half: model\.onnx is not readable/)]);
  });
  it('reads DATA_DIR/models without MODELS_DIR, as the server does', async () => {
    const out: string[] = [];
    const dataDir = path.join(dir, 'data');
    mkdirSync(path.join(dataDir, 'models'), { recursive: true }); // made by the server's first start
    expect(
      await runAdmin(['models'], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, { out: (l) => out.push(l), err: () => {} }),
    ).toBe(EXIT.ok);
    expect(out).toEqual([`No models in ${path.join(dataDir, 'models')}.`]);
  });
});
