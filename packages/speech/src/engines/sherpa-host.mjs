// Runs sherpa-onnx in a helper process. Its native code exits or aborts the whole process on
// input it does not like (a bad path, a token missing from tokens.txt), and that must never be
// the server: here it only ends this process, which the parent starts again.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { OfflineTts } = require('sherpa-onnx-node');

/** Loaded models by key; blends (keys with '#') are few and heavy: at most four are kept. */
const loaded = new Map();

function instance(key, config) {
  let tts = loaded.get(key);
  if (tts) return tts;
  tts = new OfflineTts(config);
  const blends = [...loaded.keys()].filter((k) => k.includes('#'));
  if (key.includes('#') && blends.length >= 4) loaded.delete(blends[0]);
  loaded.set(key, tts);
  return tts;
}

// The parent may be gone by the time a reply is ready (it was stopped, or died): the reply is then
// dropped, and 'disconnect' ends this process. With a callback, a failed send (EPIPE) is given to it,
// never thrown as an uncaught 'error'.
function reply(msg) {
  if (!process.connected) return;
  process.send(msg, () => {});
}

/** A model's keys: its own, its reloads after a change (`id~n`) and its blends (`key#…`). */
const ofModel = (key, id) => key === id || key.startsWith(`${id}~`) || key.startsWith(`${id}#`);

process.on('message', (m) => {
  try {
    if (m.op === 'drop') {
      // The model was removed from (or changed in) MODELS_DIR: its loaded instances are let go.
      for (const key of [...loaded.keys()]) if (m.models.some((id) => ofModel(key, id))) loaded.delete(key);
      reply({ id: m.id });
      return;
    }
    const tts = instance(m.key, m.config);
    if (m.op === 'info') {
      reply({ id: m.id, numSpeakers: tts.numSpeakers, sampleRate: tts.sampleRate });
      return;
    }
    const audio = tts.generate(m.request);
    reply({ id: m.id, samples: Float32Array.from(audio.samples), sampleRate: audio.sampleRate });
  } catch (e) {
    reply({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
process.on('disconnect', () => process.exit(0));
