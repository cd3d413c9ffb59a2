/**
 * Refuses a second action that arrives within `windowMs` of the last accepted one: the second
 * click of a double click, or a click aimed at a control that has just appeared or changed.
 */
export class ClickGuard {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly windowMs: number) {}

  /** True (and remembered) when the action may run now. */
  accept(now: number): boolean {
    if (now - this.last < this.windowMs) return false;
    this.last = now;
    return true;
  }

  /** Something changed under the pointer (a button appeared): wait a window before the next action. */
  hold(now: number): void {
    this.last = now;
  }
}

/** Longer than a double click's second press, shorter than a deliberate second click. */
export const CLICK_GUARD_MS = 600;
