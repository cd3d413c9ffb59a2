import { FliteEngine } from './src/engines/flite.ts'
import { estimateF0 } from './src/dsp/f0.ts'
const e = new FliteEngine()
for (const voice of e.listVoices()) {
  const res = [] as string[]
  for (const p of [-6, 0, 6]) {
    const t = performance.now()
    let s: Float32Array = new Float32Array(); let sr = 0
    for await (const c of e.synthesize({ text: 'The quick brown fox jumps over the lazy dog. Hello world, this is a test of the system.', voice, speed: 1, pitch: p, profile: voice.profile })) { s = c.samples; sr = c.sampleRate }
    res.push(`${p}:${estimateF0(s, sr).median.toFixed(0)} (${(s.length/sr).toFixed(2)}s ${sr} ${(performance.now()-t).toFixed(0)}ms)`)
  }
  console.log(voice.id, res.join(' '))
}
