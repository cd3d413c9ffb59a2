/** The engines that run in this process (and in each pool worker): chosen from config. */
import type { Engine } from '../core/types.ts';
import { EspeakEngine } from './espeak.ts';
import { FliteEngine } from './flite.ts';
import { GnuSpeechEngine } from './gnuspeech.ts';
import { SherpaEngine } from './sherpa.ts';

export interface LocalEngineConfig {
  /** Folder of sherpa-onnx models (found by their layout, or listed by `manifest.json`); unset: no neural models. */
  modelsDir?: string;
}

export function createLocalEngines(config: LocalEngineConfig): Map<string, Engine> {
  const engines: Engine[] = [new EspeakEngine(), new FliteEngine(), new GnuSpeechEngine()];
  if (config.modelsDir) {
    // Even with no model yet: one added while the process runs is found by its rescans.
    engines.push(SherpaEngine.fromModelsDir(config.modelsDir));
  }
  return new Map(engines.map((e) => [e.id, e]));
}
