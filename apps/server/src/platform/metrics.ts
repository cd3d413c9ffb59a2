import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus registry (prom-client). One per process, as Prometheus scrapes each process on its own:
 * HTTP latency, synthesis time and real-time factor by engine, credits held and settled, and gauges read when
 * scraped from sources the modules register (jobs by state, credits on hold, queue depth).
 */
export const registry = new Registry();

collectDefaultMetrics({ register: registry });

/**
 * A label value in the Prometheus text format: backslash, double quote and line feed escaped; the format has no escape
 * for other control characters (a carriage return would end the line for some readers), so they become U+FFFD.
 * prom-client escapes the first three itself; labels pass through `clean` before they reach it.
 */
export const label = (v: string) =>
  v
    .replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '\ufffd');

// eslint-disable-next-line no-control-regex
const clean = (v: string) => v.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '\ufffd');

const httpRequests = new Counter({
  name: 'polyvox_http_requests_total',
  help: 'HTTP requests answered.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});
const httpSeconds = new Histogram({
  name: 'polyvox_http_request_seconds',
  help: 'Time to answer HTTP requests, by route pattern, method and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});
const clientEvents = new Counter({
  name: 'polyvox_client_events_total',
  help: 'Events reported by clients.',
  labelNames: ['type', 'event', 'os'] as const,
  registers: [registry],
});
const synthesisSeconds = new Histogram({
  name: 'polyvox_synthesis_seconds',
  help: 'Time to synthesize one request (whole file or stream), by engine.',
  labelNames: ['engine', 'kind'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
  registers: [registry],
});
const synthesisAudioSeconds = new Counter({
  name: 'polyvox_synthesis_audio_seconds_total',
  help: 'Seconds of audio synthesized, by engine.',
  labelNames: ['engine'] as const,
  registers: [registry],
});
const realTimeFactor = new Histogram({
  name: 'polyvox_synthesis_real_time_factor',
  help: 'Synthesis time divided by the length of the audio made (below 1 is faster than real time), by engine.',
  labelNames: ['engine'] as const,
  buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
  registers: [registry],
});
const creditsHeld = new Counter({
  name: 'polyvox_credits_held_total',
  help: 'Credits put on hold for paid work.',
  registers: [registry],
});
const creditsSettled = new Counter({
  name: 'polyvox_credits_settled_total',
  help: 'Credits charged when held work was settled.',
  registers: [registry],
});
const creditsReleased = new Counter({
  name: 'polyvox_credits_released_total',
  help: 'Held credits given back (failed, stopped or expired work).',
  registers: [registry],
});

/** A gauge's values when scraped: one number, or one per label value. */
export type GaugeSource = () => Promise<number | Record<string, number>> | number | Record<string, number>;

/**
 * Sources for the gauges read at scrape time. Several apps in one process (tests) each register theirs; the newest
 * still registered answers, so a closed app's database is never asked.
 */
const sources = new Map<string, GaugeSource[]>();

function registerSource(name: string, source: GaugeSource): () => void {
  const list = sources.get(name) ?? [];
  list.push(source);
  sources.set(name, list);
  return () => {
    const at = list.indexOf(source);
    if (at >= 0) list.splice(at, 1);
  };
}

function sourcedGauge(name: string, help: string, labelName: string | null, fallback: number | null): void {
  new Gauge({
    name,
    help,
    labelNames: labelName ? [labelName] : [],
    registers: [registry],
    async collect() {
      this.reset();
      const source = sources.get(name)?.at(-1);
      const value = source ? await Promise.resolve(source()).catch(() => null) : null;
      if (typeof value === 'number') this.set(value);
      else if (value && labelName) for (const [k, v] of Object.entries(value)) this.set({ [labelName]: clean(k) }, v);
      else if (fallback !== null) this.set(fallback);
    },
  });
}

sourcedGauge('polyvox_jobs', 'Synthesis jobs by state, from the jobs table.', 'state', null);
sourcedGauge('polyvox_credits_on_hold', 'Credits held right now by open holds.', null, 0);
sourcedGauge('polyvox_queue_depth', 'Synthesis work waiting in the queue (0 when there is no queue).', 'queue', 0);

export const metrics = {
  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method: clean(method), route: clean(route), status: String(status) };
    httpRequests.inc(labels);
    httpSeconds.observe(labels, seconds);
  },
  clientEvent(type: string, event: string, os: string): void {
    clientEvents.inc({ type: clean(type), event: clean(event), os: clean(os) });
  },
  /** One finished synthesis: its wall time and the seconds of audio it made (a cache hit is not counted). */
  synthesis(engine: string, kind: 'file' | 'stream' | 'job', seconds: number, audioSeconds: number): void {
    synthesisSeconds.observe({ engine: clean(engine), kind }, seconds);
    if (audioSeconds > 0) {
      synthesisAudioSeconds.inc({ engine: clean(engine) }, audioSeconds);
      realTimeFactor.observe({ engine: clean(engine) }, seconds / audioSeconds);
    }
  },
  credits(kind: 'held' | 'settled' | 'released', amount: number): void {
    if (!(amount > 0)) return;
    (kind === 'held' ? creditsHeld : kind === 'settled' ? creditsSettled : creditsReleased).inc(amount);
  },
  async render(): Promise<string> {
    return registry.metrics();
  },
  contentType: registry.contentType,
};

/** Jobs by state (`{queued: 3, running: 1, …}`), read from the database at scrape time. Returns the unregister function. */
export const registerJobStates = (source: GaugeSource) => registerSource('polyvox_jobs', source);
/** Credits held by open holds, read from the database at scrape time. */
export const registerCreditsOnHold = (source: GaugeSource) => registerSource('polyvox_credits_on_hold', source);
/**
 * Queue depth for the queue module: a number, or one per queue name (`{synthesis: 4, jobs: 0}`), read at scrape
 * time; 0 while nothing is registered.
 */
export const registerQueueDepth = (source: GaugeSource) => registerSource('polyvox_queue_depth', source);
