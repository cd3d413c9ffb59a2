import os from 'node:os';

/**
 * Synthesis is background work beside the API: its threads and child processes run at a lower
 * priority so the server's event loop gets a core first. On Linux the nice value is per thread, so
 * `lowerPriority()` from a worker thread lowers that thread only; children inherit it.
 */
export const BACKGROUND_NICE = 10;

/**
 * The encoder thread's: below the server's event loop, which answers every other request and must get a core the
 * moment it has work, yet above the synthesis workers, whose sentences it encodes (a stream's next bytes wait on it).
 */
export const ENCODER_NICE = 5;

export function lowerPriority(pid = 0, nice = BACKGROUND_NICE): void {
  try {
    os.setPriority(pid, nice);
  } catch {
    // Not permitted or not supported here: synthesis still works, only at normal priority.
  }
}
