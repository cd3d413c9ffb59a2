import { createSpeech } from './src/index.ts'
let t = performance.now()
const speech = await createSpeech({})
console.log('init', (performance.now()-t).toFixed(0), 'pool', speech.poolSize, 'voices', speech.listVoices().length, speech.listModels().map(m => m.id + ':' + m.voiceCount))
for (const [voiceId, text, format] of [['espeak:en-us', 'Hello world. I have $5.50 and 3 apples! This is the third sentence.', 'mp3'], ['espeak:cmn+f3', '你好，世界。今天是2024年3月5日。', 'opus'], ['flite:slt', 'Hello from flite.', 'wav'], ['gnuspeech:male', 'Hello from gnu speech.', 'pcm']] as const) {
  t = performance.now()
  const r = await speech.synthesize({ text, voiceId, format })
  console.log(voiceId, format, r.audio.length, r.durationSec.toFixed(2), r.language, r.sentences, (performance.now()-t).toFixed(0) + 'ms', r.words.slice(0, 3))
  t = performance.now()
  const r2 = await speech.synthesize({ text, voiceId, format })
  console.log(' cached', r2.cached, (performance.now()-t).toFixed(2))
}
t = performance.now()
let first = 0, n = 0, bytes = 0
for await (const b of speech.synthesizeStream({ text: 'One sentence here. Two sentences here. Three sentences here. Four sentences here.', voiceId: 'espeak:en-us+m3', format: 'mp3' })) { if (!first) first = performance.now() - t; n++; bytes += b.length }
console.log('stream', first.toFixed(0), (performance.now()-t).toFixed(0), n, bytes)
try { await speech.synthesize({ text: '你好世界', voiceId: 'espeak:en-us' }) } catch (e) { console.log('err', (e as any).code, (e as Error).message) }
await speech.close()
