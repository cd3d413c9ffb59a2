/** The engines that run in this process (and in each pool worker): chosen from config. */
import type { Engine } from '../types.ts';
import { EspeakEngine } from './espeak.ts';
import { FliteEngine } from './flite.ts';
import { GnuSpeechEngine } from './gnuspeech.ts';
import { SherpaEngine } from './sherpa.ts';

export interface LocalEngineConfig {
  /** Folder with a sherpa-onnx `manifest.json`; unset or missing: no neural models. */
  modelsDir?: string;
}

export function createLocalEngines(config: LocalEngineConfig): Map<string, Engine> {
  const engines: Engine[] = [new EspeakEngine(), new FliteEngine(), new GnuSpeechEngine()];
  if (config.modelsDir) {
    const sherpa = SherpaEngine.fromModelsDir(config.modelsDir);
    if (sherpa) engines.push(sherpa);
  }
  return new Map(engines.map((e) => [e.id, e]));
}
