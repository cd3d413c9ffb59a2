/**
 * sherpa-onnx: the neural models an operator puts in MODELS_DIR (VITS/Piper, Matcha, Kokoro and
 * Kitten with voice vectors, ZipVoice and Pocket for zero-shot cloning), found in their folders
 * (sherpa-discover.ts) or listed by its manifest, and followed while the process runs (rescan).
 * Models load on first use in a helper process (see sherpa-host.mjs): sherpa-onnx's native code
 * exits the process on inputs it rejects, and that process must not be the server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpeechError } from '../core/errors.ts';
import { changeSpeedPitch } from '../dsp/sonic.ts';
import { previewTextFor } from '../catalogue/languages.ts';
import type { Engine, EngineRequest, Gender, ModelInfo, PcmChunk, VoiceInfo } from '../core/types.ts';
import { ChildHost, HostExit } from './child-host.ts';
import { ensureEspeakDataDir } from './espeak-data-dir.ts';
import { totalSemitones, totalSpeed } from './pitch.ts';
import { scanModelsDir, type ModelProblem } from './sherpa-discover.ts';
import { espeakFrontend, espeakPhonemeInput, type EspeakFrontend } from './sherpa-frontend.ts';
import { CLONING_TYPES, VECTOR_TYPES, type SherpaModelEntry } from './sherpa-manifest.ts';
import { QUALITY } from '../core/quality.ts';

const DEFAULT_PITCH: Record<Gender, number> = { male: 120, female: 210, neutral: 160 };

type ModelConfig = Record<string, unknown>;

/** What a rescan of MODELS_DIR changed. */
export interface ModelsChange {
  added: string[];
  removed: string[];
  /** Models whose files or settings changed: their voices were replaced. */
  changed: string[];
  problems: ModelProblem[];
}

export class SherpaEngine implements Engine {
  readonly id = 'sherpa';
  private readonly host = new ChildHost(new URL('./sherpa-host.mjs', import.meta.url));
  private models: SherpaModelEntry[] = [];
  private voices: VoiceInfo[] = [];
  /** The models sherpa-onnx phonemizes with eSpeak NG: they take phoneme rules (sherpa-frontend.ts). */
  private espeakModels = new Map<string, EspeakFrontend>();
  /** Folders that were skipped at the last scan, and why. */
  problems: ModelProblem[] = [];
  /** The state of MODELS_DIR's entries at the last scan (see signature()). */
  private seen = '';
  /** Bumped for a model whose entry changed: its helper-process key changes with it. */
  private readonly generation = new Map<string, number>();

  constructor(
    models: SherpaModelEntry[],
    private readonly modelsDir?: string,
  ) {
    this.setModels(models);
  }

  /** The models found in MODELS_DIR (see sherpa-discover.ts), with manifest.json over them; possibly none yet. */
  static fromModelsDir(modelsDir: string): SherpaEngine {
    const engine = new SherpaEngine([], modelsDir);
    engine.rescan();
    return engine;
  }

  get capabilities() {
    return {
      quality: QUALITY.neural,
      languages: [...new Set(this.models.flatMap((m) => m.languages))],
      mixable: this.models.some((m) => VECTOR_TYPES.has(m.type)),
      nativeCloning: this.models.some((m) => CLONING_TYPES.has(m.type)),
      ssml: false,
      wordTimings: false,
      nativePitch: true,
      nativeSpeed: true,
      // The models' length scale sounds natural within about half and twice their pace; the rest is stretched.
      speedRange: [0.5, 2] as const,
    };
  }

  /**
   * A cheap fingerprint of MODELS_DIR: its entries, and the files of its folders, with sizes and
   * mtimes (a model still being copied changes it until the copy ends).
   */
  private signature(): string {
    const dir = this.modelsDir;
    if (!dir) return '';
    const stamp = (p: string, n: string): string => {
      try {
        const st = statSync(p);
        return `${n}:${st.size}:${st.mtimeMs}`;
      } catch {
        return n;
      }
    };
    try {
      return readdirSync(dir, { withFileTypes: true })
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((d) => {
          const p = path.join(dir, d.name);
          if (!d.isDirectory()) return stamp(p, d.name);
          try {
            return `${d.name}/[${readdirSync(p)
              .sort()
              .map((n) => stamp(path.join(p, n), n))
              .join(',')}]`;
          } catch {
            return d.name;
          }
        })
        .join('|');
    } catch {
      return '';
    }
  }

  /** Reads MODELS_DIR again: models added, removed or changed since the last scan take effect now. */
  rescan(): ModelsChange {
    if (!this.modelsDir) return { added: [], removed: [], changed: [], problems: [] };
    this.seen = this.signature();
    this.lookedAt = performance.now();
    const scan = scanModelsDir(this.modelsDir);
    const before = new Map(this.models.map((m) => [m.id, JSON.stringify(m)]));
    const after = new Map(scan.models.map((m) => [m.id, JSON.stringify(m)]));
    const change: ModelsChange = {
      added: [...after.keys()].filter((id) => !before.has(id)),
      removed: [...before.keys()].filter((id) => !after.has(id)),
      changed: [...after.keys()].filter((id) => before.has(id) && before.get(id) !== after.get(id)),
      problems: scan.problems,
    };
    const gone = [...change.changed, ...change.removed];
    for (const id of gone) this.generation.set(id, (this.generation.get(id) ?? 0) + 1);
    // Their loaded instances are let go; a failure only leaves them loaded.
    if (gone.length && this.host.running) this.host.request({ op: 'drop', models: gone }).catch(() => {});
    this.problems = scan.problems;
    this.setModels(scan.models);
    return change;
  }

  /**
   * Rescans when MODELS_DIR changed since the last scan (looked at once a second at most, unless
   * `force`): what the server's poll and each pool worker before a job do.
   */
  refreshIfChanged(force = false): ModelsChange | undefined {
    if (!this.modelsDir) return undefined;
    const now = performance.now();
    if (!force && now - this.lookedAt < 1000) return undefined;
    this.lookedAt = now;
    return this.signature() !== this.seen ? this.rescan() : undefined;
  }
  private lookedAt = 0;

  private setModels(models: SherpaModelEntry[]): void {
    this.models = models;
    this.espeakModels = new Map(
      models.flatMap((m) => {
        const frontend = espeakFrontend(m);
        return frontend ? [[m.id, frontend] as const] : [];
      }),
    );
    this.voices = models
      .filter((m) => !CLONING_TYPES.has(m.type))
      .flatMap((m) =>
        m.speakers.map((s): VoiceInfo => {
          const languages = s.languages ?? m.languages;
          return {
            id: `sherpa:${m.id}:${s.sid}`,
            name: s.name,
            gender: s.gender,
            languages,
            model: m.id,
            engine: this.id,
            variant: String(s.sid),
            age: 'adult',
            profile: {
              pitchHz: s.pitchHz ?? DEFAULT_PITCH[s.gender],
              range: 50,
              rate: 1,
              formantScale: 1,
              breathiness: 0,
              gainDb: 0,
            },
            previewText: previewTextFor(languages[0] ?? 'en'),
            quality: m.quality ?? QUALITY.neural,
            ...(m.description ? { description: m.description } : {}),
            ...(this.espeakModels.has(m.id)
              ? { phonemes: 'espeak' as const, phonemeLanguage: this.espeakModels.get(m.id)!.voice }
              : {}),
          };
        }),
      );
  }

  listVoices(): VoiceInfo[] {
    return this.voices;
  }

  listModels(): ModelInfo[] {
    return this.models.map((m) => ({
      id: m.id,
      name: m.name,
      engine: this.id,
      type: VECTOR_TYPES.has(m.type) ? 'mixing' : CLONING_TYPES.has(m.type) ? 'cloning' : 'standard',
      languages: m.languages,
      genders: [...new Set(m.speakers.map((s) => s.gender))],
      description: m.description ?? `${m.type} model (sherpa-onnx)`,
      voiceCount: CLONING_TYPES.has(m.type) ? 0 : m.speakers.length,
      quality: m.quality ?? QUALITY.neural,
      ...(m.licence ? { licence: m.licence } : {}),
      ...(CLONING_TYPES.has(m.type)
        ? { referenceText: m.type === 'zipvoice' ? ('required' as const) : ('optional' as const) }
        : {}),
    }));
  }

  /** A voice of a zero-shot model: it speaks like the reference sample passed with each request. */
  cloneVoice(modelId: string, name: string, gender: Gender = 'neutral'): VoiceInfo {
    const m = this.model(modelId);
    if (!CLONING_TYPES.has(m.type))
      throw new SpeechError('VALIDATION_FAILED', `${modelId} cannot clone`, {
        params: { field: 'model', rule: 'cloning model' },
      });
    return {
      id: `sherpa:${m.id}:clone`,
      name,
      gender,
      languages: m.languages,
      model: m.id,
      engine: this.id,
      variant: 'clone',
      age: 'adult',
      profile: { pitchHz: DEFAULT_PITCH[gender], range: 50, rate: 1, formantScale: 1, breathiness: 0, gainDb: 0 },
      previewText: previewTextFor(m.languages[0] ?? 'en'),
    };
  }

  private model(id: string): SherpaModelEntry {
    // A pool worker's engine follows MODELS_DIR by itself: a model added or removed since its last job.
    this.refreshIfChanged();
    const find = (): SherpaModelEntry | undefined => this.models.find((x) => x.id === id);
    // A file gone since the last scan is never handed to the native code (it would exit): scan again first.
    const present = (m: SherpaModelEntry): boolean =>
      Object.values(m.files).every((f) => f!.split(',').every((p) => existsSync(p)));
    let m = find();
    if (!m || !present(m)) {
      this.refreshIfChanged(true);
      m = find();
    }
    if (!m) throw new SpeechError('NOT_FOUND', `model ${id} is not installed`);
    return m;
  }

  async *synthesize(req: EngineRequest): AsyncIterable<PcmChunk> {
    const m = this.model(req.voice.model);
    const blend = VECTOR_TYPES.has(m.type) ? req.profile.blend?.filter((b) => b.weight > 0) : undefined;
    const cloning = CLONING_TYPES.has(m.type);
    if (cloning && !req.reference)
      throw new SpeechError('VALIDATION_FAILED', `${m.id} needs a reference sample`, {
        params: { field: 'reference', rule: 'required' },
      });
    // ZipVoice conditions on the sample's transcript as well as its sound.
    if (m.type === 'zipvoice' && !req.reference?.text?.trim()) {
      throw new SpeechError('VALIDATION_FAILED', `${m.id} needs the transcript of the reference sample`, {
        params: { field: 'reference.text', rule: 'required' },
      });
    }
    const { key, config } = await this.load(m, blend);
    const sid = blend?.length ? 0 : Number(req.voice.variant) || 0;
    const speed = totalSpeed(req);
    const generationConfig = cloning
      ? {
          speed,
          sid: 0,
          numSteps: m.options?.numSteps ?? 4,
          referenceAudio: req.reference!.samples,
          referenceSampleRate: req.reference!.sampleRate,
          referenceText: req.reference!.text ?? '',
        }
      : undefined;
    // A phoneme rule's `[[…]]` reaches eSpeak NG as phonemes on a model that phonemizes with it.
    const frontend = this.espeakModels.get(m.id);
    const text = frontend ? espeakPhonemeInput(req.text, frontend) : req.text;
    const request = { text, sid, speed, ...(generationConfig ? { generationConfig } : {}) };
    const audio = await this.run(m, { op: 'generate', key, config, request });
    const generated = audio.samples as Float32Array;
    const rate = audio.sampleRate as number;
    if (!generated.length) throw new SpeechError('INTERNAL', `${m.id} produced no audio for this text`);
    // A blend already moves the pitch through the vectors; only the requested shift remains.
    const semis = blend?.length ? req.pitch : totalSemitones(req);
    const samples = Math.abs(semis) > 0.01 ? await changeSpeedPitch(generated, rate, 1, semis) : generated;
    yield { samples, sampleRate: rate };
  }

  /** One request to the helper process; its death becomes an INTERNAL error naming the model. */
  private async run(m: SherpaModelEntry, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.host.request(payload);
    } catch (e) {
      if (e instanceof HostExit) throw new SpeechError('INTERNAL', `${m.id}: sherpa-onnx stopped (${e.message})`, { cause: e });
      throw new SpeechError('INTERNAL', `${m.id}: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The helper process's key and config for a model, or for a blend of its voices. */
  private async load(m: SherpaModelEntry, blend?: { sid: number; weight: number }[]): Promise<{ key: string; config: unknown }> {
    const wrap = (model: ModelConfig): unknown => ({
      model: { ...model, numThreads: m.numThreads ?? 1, debug: 0, provider: 'cpu' },
      maxNumSentences: 1,
      ...(m.files.ruleFsts ? { ruleFsts: m.files.ruleFsts } : {}),
      ...(m.files.ruleFars ? { ruleFars: m.files.ruleFars } : {}),
    });
    // A model replaced in MODELS_DIR gets another key: the helper process loads it anew.
    const id = this.generation.get(m.id) ? `${m.id}~${this.generation.get(m.id)}` : m.id;
    if (!blend?.length) return { key: id, config: wrap(await this.config(m, undefined, 0)) };
    // A blend is written as a voices file of its own; the base model tells how many speakers it holds.
    const base = { key: id, config: wrap(await this.config(m, undefined, 0)) };
    const info = await this.run(m, { op: 'info', ...base });
    return { key: `${id}#${JSON.stringify(blend)}`, config: wrap(await this.config(m, blend, info.numSpeakers as number)) };
  }

  async close(): Promise<void> {
    await this.host.close();
  }

  private async config(
    m: SherpaModelEntry,
    blend: { sid: number; weight: number }[] | undefined,
    speakers: number,
  ): Promise<ModelConfig> {
    const f = m.files;
    const o = m.options ?? {};
    // Piper-style VITS, Matcha, Kokoro v1, Kitten and ZipVoice phonemize with eSpeak: without their
    // own espeak-ng-data (and, for VITS and Matcha, no lexicon) they get the bundled eSpeak's copy.
    const needsEspeak = m.type === 'vits' || m.type === 'matcha' ? !f.lexicon : m.type !== 'pocket';
    const dataDir = f.dataDir ?? (needsEspeak ? await ensureEspeakDataDir() : '');
    const common = { tokens: f.tokens ?? '', dataDir, lexicon: f.lexicon ?? '' };
    switch (m.type) {
      case 'vits':
        return {
          vits: {
            model: f.model,
            ...common,
            ...(f.dictDir ? { dictDir: f.dictDir } : {}),
            noiseScale: o.noiseScale ?? 0.667,
            noiseScaleW: o.noiseScaleW ?? 0.8,
            lengthScale: o.lengthScale ?? 1,
          },
        };
      case 'matcha':
        return {
          matcha: {
            acousticModel: f.acousticModel,
            vocoder: f.vocoder,
            ...common,
            noiseScale: o.noiseScale ?? 0.667,
            lengthScale: o.lengthScale ?? 1,
          },
        };
      case 'kokoro':
      case 'kitten': {
        const voices = blend?.length ? blendVoices(f.voices!, speakers, blend) : f.voices!;
        const extra = m.type === 'kokoro' && f.dictDir ? { dictDir: f.dictDir, lang: String(o.lang ?? '') } : {};
        return { [m.type]: { model: f.model, voices, ...common, ...extra, lengthScale: o.lengthScale ?? 1 } };
      }
      case 'zipvoice':
        // sherpa-onnx 1.13.8 reads ZipVoice's vocoder path from the Matcha config: give it there too.
        return {
          matcha: { vocoder: f.vocoder },
          zipvoice: {
            tokens: f.tokens,
            encoder: f.encoder,
            decoder: f.decoder,
            vocoder: f.vocoder,
            dataDir,
            lexicon: f.lexicon ?? '',
            featScale: o.featScale ?? 0.1,
            tShift: o.tShift ?? 0.5,
            targetRms: o.targetRms ?? 0.1,
            guidanceScale: o.guidanceScale ?? 1,
          },
        };
      case 'pocket':
        return {
          pocket: {
            lmFlow: f.lmFlow,
            lmMain: f.lmMain,
            encoder: f.encoder,
            decoder: f.decoder,
            textConditioner: f.textConditioner,
            vocabJson: f.vocabJson,
            tokenScoresJson: f.tokenScoresJson,
          },
        };
    }
  }
}

/**
 * Writes a voices file whose every speaker is the weighted mean of the blended speakers' vectors
 * (a voices file is float32 [speakers, tokens, dim], one block per speaker), and returns its path.
 */
export function blendVoices(voicesFile: string, speakers: number, blend: { sid: number; weight: number }[]): string {
  const raw = readFileSync(voicesFile);
  const all = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  if (blend.some((b) => b.sid < 0 || b.sid >= speakers))
    throw new SpeechError('VALIDATION_FAILED', 'a blended speaker is not in the model', {
      params: { field: 'mix', rule: 'speaker of the model' },
    });
  const total = blend.reduce((a, b) => a + b.weight, 0);
  const block = all.length / speakers;
  const mixed = new Float32Array(block);
  for (const b of blend) {
    const w = b.weight / total;
    for (let i = 0; i < block; i++) mixed[i] = mixed[i]! + w * all[b.sid * block + i]!;
  }
  const out = new Float32Array(all.length);
  for (let s = 0; s < speakers; s++) out.set(mixed, s * block);
  const hash = createHash('sha256').update(voicesFile).update(JSON.stringify(blend)).digest('hex').slice(0, 16);
  const file = path.join(tmpdir(), `polyvox-blend-${hash}.bin`);
  writeFileSync(file, Buffer.from(out.buffer));
  return file;
}
