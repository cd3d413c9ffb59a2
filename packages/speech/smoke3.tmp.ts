import { EspeakEngine } from './src/engines/espeak.ts'
import { runEngine } from './src/pipeline/run-engine.ts'
const e = new EspeakEngine()
const voices = e.listVoices()
const times: string[] = []
for (let i = 0; i < 40; i++) {
  const voice = voices.find(v => v.id === ['espeak:en-us', 'espeak:en-us+m3', 'espeak:cmn', 'espeak:fr-fr+f3'][i % 4])!
  const r = await runEngine(e, { engine: 'espeak', voice, text: voice.id.includes('cmn') ? '今天天气很好，我们去公园散步吧。' : 'One sentence here with a few more words in it.', speed: 1, pitch: 0, profile: voice.profile, sampleRate: 24000, loudness: true })
  times.push(`${r.engineMs.toFixed(0)}+${r.dspMs.toFixed(0)}`)
}
console.log(times.join(' '))
