/**
 * The responsiveness bench's caller, in a process of its own: GET `PROBE_URL` (with the `x-sid` header `PROBE_SID`)
 * every `PROBE_EVERY_MS`, one call at a time, each read to its end, until the parent says `stop` (IPC). It answers
 * with every call's start and end (epoch ms, sub-millisecond) and status. Apart from the load's clients, so what it
 * measures is the server, not the event loop that also reads eight streams of audio.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const url = new URL(process.env.PROBE_URL);
const every = Number(process.env.PROBE_EVERY_MS) || 5;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const now = () => performance.timeOrigin + performance.now();
const calls = [];
let stopping = false;

function get() {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { 'x-sid': process.env.PROBE_SID ?? '' } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

process.on('message', (message) => {
  if (message === 'stop') stopping = true;
});

while (!stopping) {
  const start = now();
  const status = await get();
  calls.push([start, now(), status]);
  await new Promise((r) => setTimeout(r, every));
}
process.send({ calls }, () => process.exit(0));
