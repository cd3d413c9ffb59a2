/**
 * The encoder thread: whole files and open streams, each stream's encoder kept here by id, so
 * encoding never runs on the server's event loop and never waits behind synthesis in the pool.
 */
import { parentPort } from 'node:worker_threads';
import { encodeAudio, openEncoder, type Encoder } from './encoders.ts';
import type { FromEncoder, ToEncoder } from './encoder-protocol.ts';

const port = parentPort!;
const streams = new Map<number, Encoder>();

function owned(parts: Uint8Array[]): Uint8Array[] {
  return parts.map((p) => (p.byteOffset === 0 && p.byteLength === p.buffer.byteLength ? p : p.slice()));
}

function reply(msg: FromEncoder): void {
  const transfer =
    msg.type === 'encoded'
      ? [msg.audio.buffer as ArrayBuffer]
      : msg.type === 'bytes'
        ? msg.chunks.map((c) => c.buffer as ArrayBuffer)
        : [];
  port.postMessage(msg, transfer);
}

port.on('message', async (msg: ToEncoder) => {
  try {
    if (msg.type === 'encode') {
      const [audio] = owned([await encodeAudio(msg.samples, msg.sampleRate, msg.format)]);
      reply({ type: 'encoded', id: msg.id, audio: audio! });
    } else if (msg.type === 'open') {
      streams.set(msg.stream, await openEncoder(msg.format, msg.sampleRate));
      reply({ type: 'bytes', id: msg.id, chunks: [] });
    } else if (msg.type === 'write') {
      const enc = streams.get(msg.stream);
      if (!enc) throw new Error(`no open stream ${msg.stream}`);
      reply({ type: 'bytes', id: msg.id, chunks: owned(await enc.write(msg.samples)) });
    } else if (msg.type === 'end') {
      const enc = streams.get(msg.stream);
      streams.delete(msg.stream);
      if (!enc) throw new Error(`no open stream ${msg.stream}`);
      reply({ type: 'bytes', id: msg.id, chunks: owned(enc.end()) });
    } else {
      streams.get(msg.stream)?.free();
      streams.delete(msg.stream);
    }
  } catch (e) {
    if (msg.type === 'free') return;
    if (msg.type !== 'encode') {
      streams.get(msg.stream)?.free();
      streams.delete(msg.stream);
    }
    const err = e as { name?: string; message?: string; code?: string };
    reply({
      type: 'error',
      id: msg.id,
      error: { name: err.name ?? 'Error', message: err.message ?? String(e), ...(err.code ? { code: err.code } : {}) },
    });
  }
});
