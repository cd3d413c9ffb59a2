/**
 * Preloaded into the bench's server (`--import`): measures the main thread on request. SIGUSR2 starts a window
 * (event-loop delay histogram and event-loop utilization reset); the next SIGUSR2 ends it and writes the window's
 * figures as JSON to BENCH_PROBE_FILE. Nothing else in the server changes. The main thread's own CPU time comes from
 * Linux's per-thread counters (/proc/self/task/<pid>/schedstat: the main thread's id is the process id), which, unlike
 * wall-clock figures, other processes on a busy machine do not inflate.
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;

/**
 * The main thread's scheduler counters in ms: `cpu`, its time on a core; `wait`, its time runnable but waiting for one
 * (other threads and processes had the cores). NaN where /proc is not there.
 */
function mainThreadSched() {
  try {
    const [cpu, wait] = fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
    return { cpu: Number(cpu) / 1e6, wait: Number(wait) / 1e6 };
  } catch {
    return { cpu: NaN, wait: NaN };
  }
}

/** Each thread's CPU and wait for a core in ms, with its nice value (a window's difference names who used the cores). */
function threadsSched() {
  const out = {};
  try {
    for (const tid of fs.readdirSync('/proc/self/task')) {
      try {
        const [cpu, wait] = fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ');
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        out[tid] = { cpu: Number(cpu) / 1e6, wait: Number(wait) / 1e6, nice };
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch {
    // No /proc.
  }
  return out;
}

/**
 * Stalls: a timer due every 5 ms notes by how much it came late; a lateness over 10 ms is a stall. Each stall is split
 * by the scheduler's counters over it: the main thread's own CPU time in it (work that held the loop: a `block` when
 * that alone is over 10 ms), its time waiting for a core (the machine's other work), and the rest (the thread asleep
 * while the loop had nothing to run: a wait on a lock, the garbage collector's helper threads, the disk). Garbage
 * collection's pauses on the main thread are counted apart (a `gc` performance entry each).
 */
const TICK_MS = 5;
const STALL_MS = 10;
function stallWatch() {
  const w = {
    count: 0,
    totalMs: 0,
    maxMs: 0,
    /** Stalls whose own CPU time is over STALL_MS: the loop held by its own work, whatever the machine's load. */
    blocks: 0,
    maxBlockCpuMs: 0,
    /** Over all stalls: the main thread's CPU, its wait for a core, and the rest. */
    cpuMs: 0,
    runqueueMs: 0,
    asleepMs: 0,
    timer: null,
    gc: { count: 0, totalMs: 0, over10: 0, maxMs: 0, byKind: {} },
  };
  let last = performance.now();
  let lastSched = mainThreadSched();
  w.timer = setInterval(() => {
    const now = performance.now();
    const sched = mainThreadSched();
    const gap = now - last;
    const late = gap - TICK_MS;
    if (late > STALL_MS) {
      const cpu = sched.cpu - lastSched.cpu;
      const wait = sched.wait - lastSched.wait;
      w.count += 1;
      w.totalMs += late;
      w.maxMs = Math.max(w.maxMs, late);
      w.cpuMs += cpu;
      w.runqueueMs += wait;
      w.asleepMs += Math.max(0, gap - cpu - wait);
      if (cpu > STALL_MS) w.blocks += 1;
      w.maxBlockCpuMs = Math.max(w.maxBlockCpuMs, cpu);
    }
    last = now;
    lastSched = sched;
  }, TICK_MS);
  w.obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      w.gc.count += 1;
      w.gc.totalMs += e.duration;
      w.gc.maxMs = Math.max(w.gc.maxMs, e.duration);
      if (e.duration > STALL_MS) w.gc.over10 += 1;
      // Per kind (perf_hooks' constants: 1 minor, 4 major, 8 incremental marking, 16 weak callbacks): count and total ms.
      const k = `kind${e.detail?.kind ?? '?'}`;
      w.gc.byKind[k] = [(w.gc.byKind[k]?.[0] ?? 0) + 1, (w.gc.byKind[k]?.[1] ?? 0) + e.duration];
    }
  });
  w.obs.observe({ entryTypes: ['gc'] });
  return w;
}

if (file) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let start = null;
  let watch = null;
  process.on('SIGUSR2', () => {
    if (!start) {
      h.reset();
      h.enable();
      watch = stallWatch();
      // BENCH_PROBE_PROFILE=<dir>: a CPU profile of the main thread over each window (inspector), written there.
      if (process.env.BENCH_PROBE_PROFILE) {
        watch.session = new Session();
        watch.session.connect();
        watch.session.post('Profiler.enable', () =>
          watch.session.post('Profiler.setSamplingInterval', { interval: 200 }, () => watch.session.post('Profiler.start')),
        );
      }
      // BENCH_PROBE_HEAP=<dir>: where the main thread allocates over each window (sampling heap profiler, counting the
      // objects the garbage collector has already taken: what makes it run), written there.
      if (process.env.BENCH_PROBE_HEAP) {
        watch.heap = new Session();
        watch.heap.connect();
        watch.heap.post('HeapProfiler.enable', () =>
          watch.heap.post('HeapProfiler.startSampling', {
            samplingInterval: 16_384,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          }),
        );
      }
      start = {
        elu: performance.eventLoopUtilization(),
        cpu: process.cpuUsage(),
        sched: mainThreadSched(),
        threads: threadsSched(),
        at: performance.now(),
      };
      return;
    }
    h.disable();
    clearInterval(watch.timer);
    watch.obs.disconnect();
    if (watch.session) {
      const session = watch.session;
      session.post('Profiler.stop', (err, res) => {
        if (!err)
          fs.writeFileSync(`${process.env.BENCH_PROBE_PROFILE}/window-${Date.now()}.cpuprofile`, JSON.stringify(res.profile));
        session.disconnect();
      });
    }
    if (watch.heap) {
      const heap = watch.heap;
      heap.post('HeapProfiler.stopSampling', (err, res) => {
        if (!err)
          fs.writeFileSync(`${process.env.BENCH_PROBE_HEAP}/window-${Date.now()}.heapprofile`, JSON.stringify(res.profile));
        heap.disconnect();
      });
    }
    const { timer: _t, obs: _o, session: _s, heap: _h, ...stalls } = watch;
    const mem = process.memoryUsage();
    const elu = performance.eventLoopUtilization(start.elu);
    const cpu = process.cpuUsage(start.cpu);
    const sched = mainThreadSched();
    const ms = (ns) => ns / 1e6;
    const threadsNow = threadsSched();
    const threads = Object.entries(threadsNow)
      .map(([tid, t]) => ({
        tid: Number(tid),
        nice: t.nice,
        cpuMs: Math.round(t.cpu - (start.threads[tid]?.cpu ?? 0)),
        waitMs: Math.round(t.wait - (start.threads[tid]?.wait ?? 0)),
      }))
      .filter((t) => t.cpuMs > 0)
      .sort((a, b) => b.cpuMs - a.cpuMs);
    fs.writeFileSync(
      file,
      JSON.stringify({
        wallMs: performance.now() - start.at,
        mainThreadActiveMs: elu.active,
        utilization: elu.utilization,
        processCpuMs: (cpu.user + cpu.system) / 1000,
        mainThreadCpuMs: sched.cpu - start.sched.cpu,
        mainThreadRunqueueMs: sched.wait - start.sched.wait,
        stalls,
        threads,
        heapSpaces: Object.fromEntries(
          v8.getHeapSpaceStatistics().map((x) => [x.space_name, Math.round(x.space_used_size / 2 ** 20)]),
        ),
        heapCode: Object.fromEntries(Object.entries(v8.getHeapCodeStatistics()).map(([k, v]) => [k, Math.round(v / 2 ** 20)])),
        heap: { usedMb: mem.heapUsed / 2 ** 20, totalMb: mem.heapTotal / 2 ** 20, arrayBuffersMb: mem.arrayBuffers / 2 ** 20 },
        delay: { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) },
      }),
    );
    start = null;
    // BENCH_PROBE_HEAPSNAPSHOT=<dir>: the main thread's heap as each window ends (to see what it holds).
    if (process.env.BENCH_PROBE_HEAPSNAPSHOT)
      v8.writeHeapSnapshot(`${process.env.BENCH_PROBE_HEAPSNAPSHOT}/window-${Date.now()}.heapsnapshot`);
  });
}
