import { FliteEngine } from './src/engines/flite.ts'
const e = new FliteEngine()
const voice = e.listVoices().find(v => v.variant === (process.argv[2] ?? 'slt'))!
for (let i = 0; i < 12; i++) {
  let n = 0
  for await (const c of e.synthesize({ text: 'The quick brown fox jumps over the lazy dog.', voice, speed: 1, pitch: 0, profile: voice.profile })) n = c.samples.length
  console.log(i, n, process.memoryUsage().rss >> 20)
}
