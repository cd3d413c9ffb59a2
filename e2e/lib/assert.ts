import { expect } from '@playwright/test';

/** Playwright's expect, named by what is checked: the message leads the failure's report. */
export function assert(condition: unknown, message: string): asserts condition {
  expect(condition, message).toBeTruthy();
}

export function assertEqual<T>(actual: T, expected: T, what: string): void {
  expect(actual, what).toBe(expected);
}
