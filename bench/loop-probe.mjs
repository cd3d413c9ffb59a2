/**
 * Preloaded into the bench's server (`--import`): measures the main thread on request. SIGUSR2 starts a window
 * (event-loop delay histogram and event-loop utilization reset); the next SIGUSR2 ends it and writes the window's
 * figures as JSON to BENCH_PROBE_FILE. Nothing else in the server changes. The main thread's own CPU time comes from
 * Linux's per-thread counters (/proc/self/task/<pid>/stat: the main thread's id is the process id), which, unlike
 * wall-clock figures, other processes on a busy machine do not inflate.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
/** The main thread's CPU time (user + system) in ms, or NaN where /proc is not there. */
function mainThreadCpuMs() {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state is field 3, utime 14 and stime 15 (clock ticks, 100 a second).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

if (file) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let start = null;
  process.on('SIGUSR2', () => {
    if (!start) {
      h.reset();
      h.enable();
      start = {
        elu: performance.eventLoopUtilization(),
        cpu: process.cpuUsage(),
        main: mainThreadCpuMs(),
        at: performance.now(),
      };
      return;
    }
    h.disable();
    const elu = performance.eventLoopUtilization(start.elu);
    const cpu = process.cpuUsage(start.cpu);
    const ms = (ns) => ns / 1e6;
    fs.writeFileSync(
      file,
      JSON.stringify({
        wallMs: performance.now() - start.at,
        mainThreadActiveMs: elu.active,
        utilization: elu.utilization,
        processCpuMs: (cpu.user + cpu.system) / 1000,
        mainThreadCpuMs: mainThreadCpuMs() - start.main,
        delay: { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) },
      }),
    );
    start = null;
  });
}
