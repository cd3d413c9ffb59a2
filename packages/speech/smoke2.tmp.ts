import { WorkerPool } from './src/pool/pool.ts'
import { espeakVoices } from './src/catalogue/espeak-voices.ts'
let t = performance.now()
const pool = new WorkerPool({ size: 1 })
await pool.warmup()
console.log('warmup', (performance.now() - t).toFixed(0))
const voices = espeakVoices()
for (const id of ['espeak:en-us', 'espeak:en-us', 'espeak:en-us+m3', 'espeak:en-us+m3', 'espeak:cmn', 'espeak:cmn', 'espeak:en-us']) {
  const voice = voices.find(v => v.id === id)!
  t = performance.now()
  const r = await pool.synthesize({ engine: 'espeak', voice, text: id.includes('cmn') ? '今天天气很好，我们去公园散步吧。' : 'One sentence here with a few more words in it.', speed: 1, pitch: 0, profile: voice.profile, sampleRate: 24000, loudness: true })
  console.log(id, (performance.now() - t).toFixed(0), r.engineMs.toFixed(0), r.dspMs.toFixed(0), (r.samples.length / 24000).toFixed(2))
}
await pool.close()
