/**
 * `npm run bench -- --only models`: for each tiny model layout the tests build (packages/speech/test/
 * support/tiny-layouts.ts), what discovering it costs at start (cold: the first scan, which converts a
 * Piper voice for sherpa-onnx; warm: a later poll) and, for those the native engine can speak, the
 * first synthesis (the model loaded), the real-time factor and the helper process's memory with the
 * model loaded; then the time to discover 50 model folders (goal: under 1 s added to start-up).
 * Tiny models are a floor: the real ones' figures are in docs/deploy.md, from sherpa-onnx's docs.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { discoverModels } from '@polyvox/speech';
import { SherpaEngine } from '@polyvox/speech/measure';
import { writeTinyLayouts, type TinyLayout } from '../packages/speech/test/support/tiny-layouts.ts';
import { median, time, type BenchRow } from './stats.js';

const TEXT = 'hello world hello world';
const RUNS = 5;

/** Resident memory (MB) of this process's sherpa-onnx helper processes, read from /proc (Linux). */
function helperRssMb(): number {
  let kb = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sherpa-host')) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // A process that ended while being read.
    }
  }
  return kb ? kb / 1024 : NaN;
}

async function speakRows(layout: TinyLayout, dir: string): Promise<BenchRow[]> {
  const engine = SherpaEngine.fromModelsDir(dir);
  try {
    const isCloning = layout.type === 'zipvoice';
    const voice = isCloning ? engine.cloneVoice(engine.listModels()[0]!.id, 'bench') : engine.listVoices()[0]!;
    const reference = isCloning
      ? {
          samples: new Float32Array(24000).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 180 * i) / 24000)),
          sampleRate: 24000,
          text: TEXT,
        }
      : undefined;
    const speak = async (): Promise<number> => {
      let samples = 0;
      let rate = 1;
      for await (const c of engine.synthesize({
        text: TEXT,
        voice,
        pitch: 0,
        speed: 1,
        profile: voice.profile,
        ...(reference ? { reference } : {}),
      })) {
        samples += c.samples.length;
        rate = c.sampleRate;
      }
      return samples / rate;
    };
    const first = await time(speak);
    const rtf: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await time(speak);
      rtf.push(r.ms / 1000 / r.value);
    }
    return [
      { metric: `models: ${layout.family} first synthesis (model loaded)`, value: first.ms, unit: 'ms' },
      { metric: `models: ${layout.family} real-time factor (tiny model)`, value: median(rtf), unit: 'x' },
      { metric: `models: ${layout.family} helper memory, model loaded (floor)`, value: helperRssMb(), unit: 'MB' },
    ];
  } finally {
    await engine.close();
  }
}

export async function modelsRows(): Promise<BenchRow[]> {
  const root = mkdtempSync(path.join(tmpdir(), 'polyvox-bench-models-'));
  const rows: BenchRow[] = [];
  try {
    const layouts = writeTinyLayouts(path.join(root, 'src'));
    for (const layout of layouts) {
      // Each alone in its own MODELS_DIR.
      const dir = path.join(root, `one-${layout.name}`);
      mkdirSync(dir);
      cpSync(layout.dir, path.join(dir, layout.name), { recursive: true });
      const cache = path.join(root, `cache-${layout.name}`);
      const cold = await time(async () => discoverModels(dir, cache));
      if (cold.value.models.length !== 1) throw new Error(`${layout.name}: ${JSON.stringify(cold.value.problems)}`);
      const warm: number[] = [];
      for (let i = 0; i < 9; i++) warm.push((await time(async () => discoverModels(dir, cache))).ms);
      rows.push(
        { metric: `models: ${layout.family} discovery at start (cold)`, value: cold.ms, unit: 'ms' },
        { metric: `models: ${layout.family} discovery, later polls (median)`, value: median(warm), unit: 'ms' },
      );
      if (layout.speaks) rows.push(...(await speakRows(layout, dir)));
    }
    // 50 model folders, the layouts round and round.
    const fifty = path.join(root, 'fifty');
    mkdirSync(fifty);
    for (let i = 0; i < 50; i++) {
      const layout = layouts[i % layouts.length]!;
      cpSync(layout.dir, path.join(fifty, `${layout.name}-${String(i).padStart(2, '0')}`), { recursive: true });
    }
    const cache = path.join(root, 'cache-fifty');
    const cold = await time(async () => discoverModels(fifty, cache));
    if (cold.value.models.length !== 50) throw new Error(`50 folders: ${JSON.stringify(cold.value.problems)}`);
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push((await time(async () => discoverModels(fifty, cache))).ms);
    rows.push(
      {
        metric: 'models: discover 50 model folders at start (cold)',
        value: cold.ms,
        unit: 'ms',
        target: '< 1000',
        pass: cold.ms < 1000,
      },
      {
        metric: 'models: discover 50 model folders, later polls (median)',
        value: median(warm),
        unit: 'ms',
        target: '< 1000',
        pass: median(warm) < 1000,
      },
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
