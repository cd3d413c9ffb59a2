import fs from 'node:fs';
import net from 'node:net';

/**
 * A port to listen on a moment later (a server whose settings name its own port before it starts).
 *
 * Not one the OS picks: a port the OS handed out and took back is the next one it may hand to another listener or a
 * connection of the other test worker, between the probe and the listen. It is picked instead below the OS's
 * ephemeral range (/proc/sys/net/ipv4/ip_local_port_range), which neither `listen(0)` nor an outgoing connection
 * takes, in a slice of its own for each vitest worker (VITEST_POOL_ID), and checked free by listening on it.
 */
export async function freePort(): Promise<number> {
  const [low, high] = reservedRange();
  const workers = 8;
  const slice = Math.floor((high - low) / workers);
  const pool = (Number(process.env.VITEST_POOL_ID) || 1) % workers;
  const start = low + pool * slice;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = start + Math.floor(Math.random() * slice);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${start}–${start + slice - 1}`);
}

/** Ports from 20,000 up to the first ephemeral one (32,768 on Linux's default settings). */
function reservedRange(): [number, number] {
  let firstEphemeral = 32768;
  try {
    const [from] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (from && from > 21_000) firstEphemeral = from;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49,152, above the default
  }
  return [20_000, firstEphemeral];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
