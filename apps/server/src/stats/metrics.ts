import { eventLabels } from './events.js';

/** A small Prometheus registry: request counts and durations by route and status, client events. */
const requests = new Map<string, number>();
const durations = new Map<string, { sum: number; count: number }>();
const events = new Map<string, number>();

/**
 * A label value in the Prometheus text format: backslash, double quote and line feed escaped; the format has no escape
 * for other control characters (a carriage return would end the line for some readers), so they become U+FFFD.
 */
export const label = (v: string) =>
  v
    .replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '\ufffd');

export const metrics = {
  request(method: string, route: string, status: number, seconds: number): void {
    const key = `method="${label(method)}",route="${label(route)}",status="${status}"`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const d = durations.get(key) ?? { sum: 0, count: 0 };
    d.sum += seconds;
    d.count += 1;
    durations.set(key, d);
  },
  clientEvent(type: string, event: string, os: string): void {
    ({ type, event, os } = eventLabels(type, event, os));
    const key = `type="${label(type)}",event="${label(event)}",os="${label(os)}"`;
    events.set(key, (events.get(key) ?? 0) + 1);
  },
  render(): string {
    const lines = [
      '# HELP polyvox_http_requests_total HTTP requests answered.',
      '# TYPE polyvox_http_requests_total counter',
      ...[...requests].map(([k, v]) => `polyvox_http_requests_total{${k}} ${v}`),
      '# HELP polyvox_http_request_seconds Time to answer HTTP requests.',
      '# TYPE polyvox_http_request_seconds summary',
      ...[...durations].flatMap(([k, d]) => [
        `polyvox_http_request_seconds_sum{${k}} ${d.sum}`,
        `polyvox_http_request_seconds_count{${k}} ${d.count}`,
      ]),
      '# HELP polyvox_client_events_total Events reported by clients.',
      '# TYPE polyvox_client_events_total counter',
      ...[...events].map(([k, v]) => `polyvox_client_events_total{${k}} ${v}`),
      '# HELP process_resident_memory_bytes Resident memory.',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${process.memoryUsage().rss}`,
    ];
    return `${lines.join('\n')}\n`;
  },
};
