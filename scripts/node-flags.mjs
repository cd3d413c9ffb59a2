// V8 flags the server runs with in production (`npm start`, the deployment examples, the benchmarks).
//
// A synthesis request lives for hundreds of milliseconds (queued, synthesized, delivered), so with V8's
// default young generation (16 MB semi-spaces at most) its objects survive two scavenges and are promoted:
// the old generation then fills with short-lived garbage and every few seconds a full mark-compact walks
// the whole heap (the voice catalogue, the schemas, the language data). Larger semi-spaces let those
// objects die young. Measured with `npx tsx bench/run.ts --only scale` (docs/deploy.md, "Sizing").
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64', '--initial-old-space-size=256', '--no-memory-reducer'];
