import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

// The package's layers (SPEECH_LAYERS in .dependency-cruiser.cjs) run in `npm run lint`; these tests keep the rules
// honest: every folder has its place in the list, and a planted upward import and a reach into the internals are seen.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const config = createRequire(import.meta.url)(path.join(repo, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: Record<string, unknown>;
  SPEECH_LAYERS: string[][];
};
const src = path.join(repo, 'packages/speech/src');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-speech-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

async function violations(files: Record<string, string>): Promise<string[]> {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(scratch, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  const { tsConfig: _ts, ...options } = config.options;
  const result = await cruise(['apps', 'packages'], {
    ...options,
    baseDir: scratch,
    validate: true,
    ruleSet: { forbidden: config.forbidden } as never,
  });
  const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe("the speech package's layers (.dependency-cruiser.cjs)", () => {
  it('place every folder of packages/speech/src in the layer list', () => {
    const listed = new Set(config.SPEECH_LAYERS.flat());
    const folders = fs
      .readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !listed.has(f))).toEqual([]);
    expect(listed.has('(root)')).toBe(true);
    // Each folder once: a folder in two places would be allowed both ways.
    expect(config.SPEECH_LAYERS.flat().length).toBe(listed.size);
  });

  it('see an upward import, an import between peers, and the server reaching into the internals', async () => {
    expect(
      await violations({
        'packages/speech/src/dsp/fft.ts': "import { pool } from '../pool/pool.ts';\nexport const f = pool;\n",
        'packages/speech/src/pool/pool.ts': 'export const pool = 1;\n',
        'packages/speech/src/threads/t.ts': "import { f } from '../dsp/fft.ts';\nexport const t = f;\n",
        'packages/speech/src/index.ts': "export { pool } from './pool/pool.ts';\n",
        'apps/server/src/a.ts':
          "import { pool } from '../../../packages/speech/src/pool/pool.ts';\nimport { pool as p } from '../../../packages/speech/src/index.ts';\nexport const a = pool + p;\n",
      }),
    ).toEqual(
      [
        'speech-layer-dsp: packages/speech/src/dsp/fft.ts -> packages/speech/src/pool/pool.ts',
        'speech-layer-threads: packages/speech/src/threads/t.ts -> packages/speech/src/dsp/fft.ts',
        'speech-public-api-only: apps/server/src/a.ts -> packages/speech/src/pool/pool.ts',
      ].sort(),
    );
  });
});
