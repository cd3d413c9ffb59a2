import { describe, expect, it } from 'vitest';
import { ClickGuard } from './click-guard';

describe('ClickGuard', () => {
  it('accepts the first click and a deliberate later one', () => {
    const guard = new ClickGuard(600);
    expect(guard.accept(1000)).toBe(true);
    expect(guard.accept(1700)).toBe(true);
  });

  it('refuses the second click of a double click', () => {
    const guard = new ClickGuard(600);
    expect(guard.accept(1000)).toBe(true);
    expect(guard.accept(1080)).toBe(false);
    // A refused click does not extend the window.
    expect(guard.accept(1600)).toBe(true);
  });

  it('refuses a click that lands just after the control appeared', () => {
    const guard = new ClickGuard(600);
    guard.hold(5000);
    expect(guard.accept(5060)).toBe(false);
    expect(guard.accept(5600)).toBe(true);
  });
});
