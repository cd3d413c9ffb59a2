import os from 'node:os';

/**
 * Synthesis is background work beside the API: its threads and child processes run at a lower
 * priority so the server's event loop gets a core first. On Linux the nice value is per thread, so
 * `lowerPriority()` from a worker thread lowers that thread only; children inherit it.
 */
export const BACKGROUND_NICE = 10;

export function lowerPriority(pid = 0): void {
  try {
    os.setPriority(pid, BACKGROUND_NICE);
  } catch {
    // Not permitted or not supported here: synthesis still works, only at normal priority.
  }
}
