import { metrics as platformMetrics } from '../platform/metrics.js';
import { eventLabels } from './events.js';

export { label } from '../platform/metrics.js';

/**
 * The process's metrics (`platform/metrics.ts`, prom-client), with client events counted under the fixed names of
 * `stats/events.ts`: anything else is counted as `other`, so posted names cannot grow the series.
 */
export const metrics = {
  ...platformMetrics,
  clientEvent(type: string, event: string, os: string): void {
    ({ type, event, os } = eventLabels(type, event, os));
    platformMetrics.clientEvent(type, event, os);
  },
};
