/** A pool worker thread: runs local engines and the DSP stage, one job at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { createLocalEngines } from '../engines/local.ts';
import { runEngine } from '../pipeline/run-engine.ts';
import { joinSentence } from '../pipeline/pauses.ts';
import { encodeAudio } from '../audio/encoders.ts';
import { transferList } from '../audio/transfer.ts';
import type { FromWorker, ToWorker, WorkerConfig } from './protocol.ts';
import { lowerPriority } from '../threads/priority.ts';
import { synthesizeAhead, synthesizeInto } from './streamed.ts';

const config = workerData as WorkerConfig;
// Background workers yield the cores to the API; the interactive lane runs one waited-on sentence
// at a time at normal priority (the encoder thread runs between the two: priority.ts).
if (!config.interactive) lowerPriority();

const port = parentPort!;
const engines = createLocalEngines(config.modelsDir ? { modelsDir: config.modelsDir } : {});

/**
 * eSpeak is asm.js: its first runs are 10–20× slower than once the JIT has optimized it, so a
 * worker runs a few sentences (and the DSP stage) before taking real work.
 */
async function warmup(): Promise<void> {
  const espeak = engines.get('espeak');
  if (!espeak) return;
  const voices = espeak.listVoices().filter((v) => v.id === 'espeak:en-us' || v.id === 'espeak:cmn');
  const deadline = performance.now() + 8000;
  for (let i = 0; i < 12 && performance.now() < deadline; i++) {
    const voice = voices[i % voices.length]!;
    const text =
      voice.id === 'espeak:cmn'
        ? '今天天气很好，我们一起去公园散步吧。'
        : 'Warming up the engine with a sentence of ordinary length, one two three.';
    const r = await runEngine(espeak, {
      engine: 'espeak',
      voice,
      text,
      speed: i % 3 === 2 ? 1.3 : 1,
      pitch: i % 4 === 3 ? 3 : 0,
      profile: voice.profile,
      sampleRate: 24000,
      loudness: true,
    });
    if (i >= 3 && r.engineMs + r.dspMs < 80) break;
  }
}

function send(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  try {
    port.postMessage(msg, transfer);
  } catch (e) {
    // A reply that cannot be cloned or transferred fails its task, not this thread.
    port.postMessage({
      type: 'error',
      id: msg.id,
      error: { name: 'Error', message: `the worker's reply could not be sent: ${(e as Error).message}` },
    } satisfies FromWorker);
  }
}

port.on('message', async (msg: ToWorker) => {
  try {
    if (msg.type === 'warmup') {
      await warmup();
      send({ type: 'done', id: msg.id });
    } else if (msg.type === 'encode') {
      // Encoding here keeps that work off the caller's event loop.
      const audio = await encodeAudio(msg.samples, msg.sampleRate, msg.format);
      const owned = new Uint8Array(audio.byteLength);
      owned.set(audio);
      send({ type: 'encoded', id: msg.id, audio: owned }, transferList([owned.buffer]));
    } else if (msg.type === 'voices') {
      const list = [...engines.values()];
      send({
        type: 'voices',
        id: msg.id,
        voices: list.flatMap((e) => e.listVoices()),
        models: list.flatMap((e) => e.listModels()),
      });
    } else if (msg.type === 'ahead') {
      const engine = engines.get(msg.job.engine);
      if (!engine) {
        msg.sink.postMessage({ type: 'fail' });
        throw new Error(`engine ${msg.job.engine} is not available in the worker`);
      }
      const result = await synthesizeAhead(engine, msg.job, msg.sink, msg.aheadSec);
      msg.sink.close();
      send({ type: 'result', id: msg.id, result });
    } else {
      const engine = engines.get(msg.job.engine);
      if (!engine) {
        msg.sink?.postMessage({ type: 'fail' });
        throw new Error(`engine ${msg.job.engine} is not available in the worker`);
      }
      if (msg.sink) {
        // The samples go to the encoder thread on the sink; only words and counts come back here.
        const result = await synthesizeInto(engine, msg.job, msg.sink, msg.mark);
        msg.sink.close();
        send({ type: 'result', id: msg.id, result });
        return;
      }
      const result = await runEngine(engine, msg.job);
      if (msg.join) {
        // Joined here (edges trimmed, pause added), so the caller's thread does not copy the samples again.
        const j = joinSentence(result.samples, result.sampleRate, result.words, msg.join);
        result.samples = j.samples;
        result.words = j.words ?? [];
      }
      // Transfer only a buffer the result owns whole (never a view into a WASM heap).
      if (result.samples.byteOffset !== 0 || result.samples.byteLength !== result.samples.buffer.byteLength)
        result.samples = result.samples.slice();
      send({ type: 'result', id: msg.id, result }, transferList([result.samples.buffer]));
    }
  } catch (e) {
    const err = e as { name?: string; message?: string; code?: string; params?: Record<string, string | number> };
    send({
      type: 'error',
      id: msg.id,
      error: {
        name: err.name ?? 'Error',
        message: err.message ?? String(e),
        ...(err.code ? { code: err.code } : {}),
        ...(err.params ? { params: err.params } : {}),
      },
    });
  }
});

// Close engines that hold helper processes when the pool terminates this thread.
process.on('exit', () => {
  for (const e of engines.values()) void e.close?.();
});
