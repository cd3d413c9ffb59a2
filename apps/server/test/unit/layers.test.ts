import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

// The import rules themselves run in `npm run lint` (dependency-cruiser over every app and package). These tests keep
// the rules honest: every server folder has its place in the layer list, and a planted violation of each kind is seen.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const config = createRequire(import.meta.url)(path.join(repo, '.dependency-cruiser.cjs')) as {
  forbidden: unknown[];
  options: Record<string, unknown>;
  SERVER_LAYERS: string[][];
  SPEECH_LAYERS: string[][];
  SYNTHESIS_LAYERS: string[][];
};

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'polyvox-layers-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function write(files: Record<string, string>, dir = scratch): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

async function violations(dir = scratch): Promise<string[]> {
  const { tsConfig: _ts, ...options } = config.options;
  const result = await cruise(['apps', 'packages'], {
    ...options,
    baseDir: dir,
    validate: true,
    ruleSet: { forbidden: config.forbidden } as never,
  });
  const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('the import rules (.dependency-cruiser.cjs)', () => {
  it.each([
    ['apps/server/src', config.SERVER_LAYERS],
    ['packages/speech/src', config.SPEECH_LAYERS],
    ['apps/server/src/synthesis', config.SYNTHESIS_LAYERS],
  ])('place every folder of %s in its layer list, each once', (folder, layers) => {
    const listed = new Set(layers.flat());
    const folders = fs
      .readdirSync(path.join(repo, folder), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !listed.has(f))).toEqual([]);
    expect(listed.has('(root)')).toBe(true);
    expect(layers.flat().length).toBe(listed.size);
  });

  it('see one dialect of synthesis importing another, and its own files importing a dialect', async () => {
    const dir = fs.mkdtempSync(path.join(scratch, 'synthesis-'));
    const at = path.relative(scratch, dir);
    write({
      [`${at}/apps/server/src/synthesis/openai/routes.ts`]: "import { n } from '../native/routes.ts';\nexport const o = n;\n",
      [`${at}/apps/server/src/synthesis/native/routes.ts`]: 'export const n = 1;\n',
      [`${at}/packages/speech/src/index.ts`]: 'export const p = 1;\n',
      [`${at}/apps/server/src/synthesis/service.ts`]: "import { n } from './native/routes.ts';\nexport const s = n;\n",
    });
    expect(await violations(dir)).toEqual(
      [
        'synthesis-layer-openai: apps/server/src/synthesis/openai/routes.ts -> apps/server/src/synthesis/native/routes.ts',
        'synthesis-layer-root: apps/server/src/synthesis/service.ts -> apps/server/src/synthesis/native/routes.ts',
      ].sort(),
    );
  });

  it('see an upward import, a cycle, a package importing an app and a Node built-in in the formats', async () => {
    write({
      'apps/server/src/platform/config.ts': "import { voice } from '../voices/service.ts';\nexport const c = voice;\n",
      'apps/server/src/voices/service.ts': "export const voice = 1;\nimport '../app.ts';\n",
      'apps/server/src/app.ts': "import { voice } from './voices/service.ts';\nexport const app = voice;\n",
      'apps/server/src/usage/a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
      'apps/server/src/usage/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'packages/speech/src/engine.ts': "import { app } from '../../../apps/server/src/app.ts';\nexport const e = app;\n",
      'packages/speech/src/formats/wav.ts': "import fs from 'node:fs';\nexport const w = fs;\n",
    });
    expect(await violations()).toEqual(
      [
        'no-circular: apps/server/src/app.ts -> apps/server/src/voices/service.ts',
        'no-circular: apps/server/src/usage/a.ts -> apps/server/src/usage/b.ts',
        'formats-no-node: packages/speech/src/formats/wav.ts -> fs',
        'packages-not-apps: packages/speech/src/engine.ts -> apps/server/src/app.ts',
        'server-layer-platform: apps/server/src/platform/config.ts -> apps/server/src/voices/service.ts',
        'server-layer-voices: apps/server/src/voices/service.ts -> apps/server/src/app.ts',
      ].sort(),
    );
  });

  it('see an upward import and one between peers in the speech package, and the server reaching into its internals', async () => {
    const dir = fs.mkdtempSync(path.join(scratch, 'speech-'));
    write(
      {
        'packages/speech/src/dsp/fft.ts': "import { pool } from '../pool/pool.ts';\nexport const f = pool;\n",
        'packages/speech/src/pool/pool.ts': 'export const pool = 1;\n',
        'packages/speech/src/threads/t.ts': "import { f } from '../dsp/fft.ts';\nexport const t = f;\n",
        'packages/speech/src/index.ts': "export { pool } from './pool/pool.ts';\n",
        'apps/server/src/a.ts':
          "import { pool } from '../../../packages/speech/src/pool/pool.ts';\nimport { pool as p } from '../../../packages/speech/src/index.ts';\nexport const a = pool + p;\n",
      },
      dir,
    );
    expect(await violations(dir)).toEqual(
      [
        'speech-layer-dsp: packages/speech/src/dsp/fft.ts -> packages/speech/src/pool/pool.ts',
        'speech-layer-threads: packages/speech/src/threads/t.ts -> packages/speech/src/dsp/fft.ts',
        'speech-public-api-only: apps/server/src/a.ts -> packages/speech/src/pool/pool.ts',
      ].sort(),
    );
  });
});
