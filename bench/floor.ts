/**
 * The floor: what a user gets without Polyvox, from the same engine and an encoder called
 * directly in this process (eSpeak NG's Emscripten package, then ffmpeg through pipes or the same
 * WebAssembly encoders the platform uses). The platform is measured against this, never against
 * its own pipeline.
 */
import { spawn } from 'node:child_process';
import initEspeak from '@echogarden/espeak-ng-emscripten';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import OpusScript from 'opusscript';
import { createMp3Encoder } from 'wasm-media-encoders';

export const ESPEAK_RATE = 22050;

interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wpm: number): number;
  synthesize(text: string, cb: (samples: Int16Array) => void): void;
}

export interface Floor {
  /** eSpeak NG (en-us, default rate) to 16-bit PCM at 22,050 Hz. */
  speak(text: string): Int16Array;
  /** ffmpeg started for this one file, PCM on stdin, the file on stdout. */
  ffmpeg(pcm: Int16Array, format: 'mp3' | 'opus'): Promise<Buffer>;
  /** LAME or libopus (WebAssembly) in this thread; opus input is first brought to 24 kHz. */
  inProcess(pcm: Int16Array, format: 'mp3' | 'opus'): Uint8Array;
}

export async function createFloor(): Promise<Floor> {
  const espeak = await initEspeak();
  const worker = new espeak.eSpeakNGWorker() as EspeakWorker;
  if (worker.set_voice('en-us') !== 0) throw new Error('espeak: no en-us voice');
  worker.set_rate(175);
  const lame = await createMp3Encoder();

  const speak = (text: string): Int16Array => {
    const parts: Int16Array[] = [];
    // The callback must return nothing: a truthy return stops eSpeak mid-text.
    worker.synthesize(text, (s) => {
      if (s?.length) parts.push(s.slice());
    });
    const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };

  const ffmpeg = (pcm: Int16Array, format: 'mp3' | 'opus'): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const codec =
        format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'] : ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'];
      const p = spawn(ffmpegInstaller.path, [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        's16le',
        '-ar',
        String(ESPEAK_RATE),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        ...codec,
        'pipe:1',
      ]);
      const out: Buffer[] = [];
      p.stdout.on('data', (d: Buffer) => out.push(d));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited with ${code}`))));
      p.stdin.end(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    });

  const inProcess = (pcm: Int16Array, format: 'mp3' | 'opus'): Uint8Array => {
    if (format === 'mp3') {
      const f = new Float32Array(pcm.length);
      for (let i = 0; i < pcm.length; i++) f[i] = pcm[i]! / 32768;
      lame.configure({ sampleRate: ESPEAK_RATE, channels: 1, bitrate: 64 });
      const a = lame.encode([f]).slice();
      const b = lame.finalize();
      const out = new Uint8Array(a.length + b.length);
      out.set(a);
      out.set(b, a.length);
      return out;
    }
    // Linear interpolation to 24 kHz: the cheapest resampling a user might do before libopus.
    const n = Math.floor((pcm.length * 24000) / ESPEAK_RATE);
    const up = new Int16Array(n);
    for (let i = 0; i < n; i++) {
      const x = (i * ESPEAK_RATE) / 24000;
      const j = Math.floor(x);
      const t = x - j;
      up[i] = Math.round(pcm[j]! * (1 - t) + (pcm[Math.min(j + 1, pcm.length - 1)] ?? 0) * t);
    }
    const opus = new OpusScript(24000, 1, OpusScript.Application.VOIP);
    opus.setBitrate(32000);
    opus.encoderCTL(4010, 6); // the complexity the platform uses
    let bytes = 0;
    const packets: Buffer[] = [];
    for (let i = 0; i + 480 <= n; i += 480) {
      const packet = opus.encode(Buffer.from(up.buffer, i * 2, 960), 480);
      packets.push(packet);
      bytes += packet.length;
    }
    opus.delete();
    // Muxing into Ogg pages costs microseconds; the packets stand for the file here.
    return new Uint8Array(Buffer.concat(packets, bytes));
  };

  return { speak, ffmpeg, inProcess };
}
