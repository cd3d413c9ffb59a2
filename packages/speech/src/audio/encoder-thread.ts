/**
 * The encoder thread: whole files and open streams, each stream's encoder kept here by id, so
 * encoding never runs on the server's event loop and never waits behind synthesis in the pool.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { checkedFile, encodeAudio, openEncoder, type Encoder } from './encoders.ts';
import { markedEncoder, markSamples, type MarkedEncoder } from './marked.ts';
import type { FromEncoder, ToEncoder, ToFileSink } from './encoder-protocol.ts';
import type { AudioFormat } from '../core/types.ts';
import { transferList } from './transfer.ts';
import { ENCODER_NICE, lowerPriority } from '../threads/priority.ts';

// Encoding (and marking) is the busiest thread after synthesis: it yields to the event loop (see priority.ts).
lowerPriority(0, ENCODER_NICE);

const port = parentPort!;
const streams = new Map<number, MarkedEncoder>();
/** Streams opened `whole`: their bytes so far, the samples written and the rate. */
const wholes = new Map<number, { format: AudioFormat; parts: Uint8Array[]; samples: number; rate: number }>();
/** Files being made from a pool worker's samples, by id: closing one drops it. */
const files = new Map<number, () => void>();

function owned(parts: Uint8Array[]): Uint8Array[] {
  return parts.map((p) => (p.byteOffset === 0 && p.byteLength === p.buffer.byteLength ? p : p.slice()));
}

function reply(msg: FromEncoder): void {
  const transfer = msg.type === 'encoded' ? [msg.audio.buffer] : msg.type === 'bytes' ? msg.chunks.map((c) => c.buffer) : [];
  port.postMessage(msg, transferList(transfer));
}

/**
 * A whole file whose samples come from a pool worker on `sink` (watermarked there), encoded as
 * they arrive; the file (or an error) goes to the host under `id`.
 */
function receiveFile(id: number, format: AudioFormat, sink: MessagePort): void {
  let enc: Encoder | undefined;
  let rate = 0;
  let samples = 0;
  let parts: Uint8Array[] = [];
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    files.delete(id);
    enc?.free();
    enc = undefined;
    parts = [];
    sink.close();
  };
  files.set(id, close);
  const handle = async (m: ToFileSink): Promise<void> => {
    if (closed) return;
    if (m.type === 'open') {
      rate = m.sampleRate;
      enc = await openEncoder(format, rate, true);
    } else if (m.type === 'pcm') {
      if (!enc) throw new Error('samples before the file was opened');
      samples += m.samples.length;
      parts.push(...(await enc.write(m.samples)));
    } else if (m.type === 'end') {
      if (!enc) throw new Error('a file ended before it was opened');
      const out = checkedFile(format, Buffer.concat([...parts, ...enc.end()]), samples, rate);
      enc = undefined;
      close();
      reply({ type: 'encoded', id, audio: owned([out])[0]! });
    } else if (m.type === 'whole') {
      enc?.free();
      enc = undefined;
      const out = await encodeAudio(m.samples, m.sampleRate, format);
      close();
      reply({ type: 'encoded', id, audio: owned([out])[0]! });
    } else {
      close();
    }
  };
  let chain = Promise.resolve();
  sink.on('message', (m: ToFileSink) => {
    chain = chain.then(
      () => handle(m),
      () => {},
    );
    chain.catch((e: unknown) => {
      if (closed) return;
      close();
      const err = e as { name?: string; message?: string; code?: string };
      reply({
        type: 'error',
        id,
        error: { name: err.name ?? 'Error', message: err.message ?? String(e), ...(err.code ? { code: err.code } : {}) },
      });
    });
  });
}

port.on('message', async (msg: ToEncoder) => {
  if (msg.type === 'file') return receiveFile(msg.id, msg.format, msg.port);
  if (msg.type === 'drop') return files.get(msg.file)?.();
  try {
    if (msg.type === 'encode') {
      const samples = markSamples(msg.samples, msg.sampleRate, msg.mark);
      const [audio] = owned([await encodeAudio(samples, msg.sampleRate, msg.format)]);
      reply({ type: 'encoded', id: msg.id, audio: audio! });
    } else if (msg.type === 'open') {
      streams.set(msg.stream, markedEncoder(await openEncoder(msg.format, msg.sampleRate, msg.whole), msg.sampleRate, msg.mark));
      if (msg.whole) wholes.set(msg.stream, { format: msg.format, parts: [], samples: 0, rate: msg.sampleRate });
      reply({ type: 'bytes', id: msg.id, chunks: [] });
    } else if (msg.type === 'write') {
      const enc = streams.get(msg.stream);
      if (!enc) throw new Error(`no open stream ${msg.stream}`);
      const bytes = await enc.write(msg.samples);
      const whole = wholes.get(msg.stream);
      if (whole) {
        whole.parts.push(...bytes);
        whole.samples += msg.samples.length;
        reply({ type: 'bytes', id: msg.id, chunks: [] });
      } else reply({ type: 'bytes', id: msg.id, chunks: owned(bytes) });
    } else if (msg.type === 'end') {
      const enc = streams.get(msg.stream);
      const whole = wholes.get(msg.stream);
      streams.delete(msg.stream);
      wholes.delete(msg.stream);
      if (!enc) throw new Error(`no open stream ${msg.stream}`);
      if (whole) {
        const file = checkedFile(whole.format, Buffer.concat([...whole.parts, ...(await enc.end())]), whole.samples, whole.rate);
        reply({ type: 'bytes', id: msg.id, chunks: owned([file]) });
      } else reply({ type: 'bytes', id: msg.id, chunks: owned(await enc.end()) });
    } else {
      streams.get(msg.stream)?.free();
      streams.delete(msg.stream);
      wholes.delete(msg.stream);
    }
  } catch (e) {
    if (msg.type === 'free') return;
    if (msg.type !== 'encode') {
      streams.get(msg.stream)?.free();
      streams.delete(msg.stream);
      wholes.delete(msg.stream);
    }
    const err = e as { name?: string; message?: string; code?: string };
    reply({
      type: 'error',
      id: msg.id,
      error: { name: err.name ?? 'Error', message: err.message ?? String(e), ...(err.code ? { code: err.code } : {}) },
    });
  }
});
