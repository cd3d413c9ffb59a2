import { EspeakEngine } from './src/engines/espeak.ts'
import { estimateF0 } from './src/dsp/f0.ts'
import { normalizeLoudness, integratedLoudness, peakDbfs } from './src/dsp/loudness.ts'
import { resample } from './src/dsp/resample.ts'
const e = new EspeakEngine()
console.log(e.listVoices().length, e.capabilities.languages.length)
const byGender = {} as Record<string, number>; for (const v of e.listVoices()) byGender[v.gender] = (byGender[v.gender]??0)+1; console.log(byGender)
const ids = new Set(e.listVoices().map(v=>v.id)); console.log('unique', ids.size)
for (const vid of ['espeak:en-us', 'espeak:en-us+f3', 'espeak:cmn+m3']) {
  const voice = e.listVoices().find(v => v.id === vid)!
  const res = [] as string[]
  let base = 0
  for (const p of [-12, -6, 0, 6, 12]) {
    const t = performance.now()
    let s: Float32Array = new Float32Array(); let sr = 0
    for await (const c of e.synthesize({ text: voice.previewText + ' ' + voice.previewText, voice, speed: 1, pitch: p, profile: voice.profile })) { s = c.samples; sr = c.sampleRate }
    const dt = performance.now() - t
    const f = estimateF0(s, sr).median
    if (p === 0) base = f
    res.push(`${p}:${f.toFixed(0)} (${(s.length/sr).toFixed(2)}s ${dt.toFixed(0)}ms)`)
  }
  console.log(vid, voice.profile.pitchHz, res.join(' '))
}
const voice = e.listVoices().find(v => v.id === 'espeak:en-us')!
for (const sp of [0.5, 1, 2]) { let s = new Float32Array(); for await (const c of e.synthesize({ text: 'The quick brown fox jumps over the lazy dog.', voice, speed: sp, pitch: 0, profile: voice.profile })) s = c.samples; console.log('speed', sp, s.length/22050) }
let s = new Float32Array(); for await (const c of e.synthesize({ text: 'The quick brown fox jumps over the lazy dog.', voice, speed: 1, pitch: 0, profile: voice.profile })) s = c.samples
console.log('loud', integratedLoudness(s, 22050), peakDbfs(s)); let t=performance.now(); const n = normalizeLoudness(s, 22050); console.log('norm', integratedLoudness(n, 22050), peakDbfs(n), performance.now()-t)
t=performance.now(); const r = await resample(n, 22050, 24000); console.log('resample', r.length, n.length*24000/22050, performance.now()-t, integratedLoudness(r, 24000))
