/** A small sequential runner: each test is named, timed, and counted; the last line is "N passed, M failed". */
export type TestFn = () => Promise<void>;

interface Entry {
  name: string;
  fn: TestFn;
}

export class Suite {
  private readonly entries: Entry[] = [];
  passed = 0;
  failed = 0;

  /** `E2E_ONLY=part,part` keeps the tests whose names contain one of the parts (for working on one flow). */
  private readonly only = (process.env.E2E_ONLY ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

  test(name: string, fn: TestFn): void {
    if (this.only.length > 0 && !this.only.some((part) => name.includes(part))) return;
    this.entries.push({ name, fn });
  }

  get size(): number {
    return this.entries.length;
  }

  async run(onFailure?: (name: string) => Promise<void>): Promise<void> {
    for (const { name, fn } of this.entries) {
      const started = Date.now();
      try {
        await fn();
        this.passed++;
        console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
      } catch (error) {
        this.failed++;
        console.log(
          `  ✗ ${name} (${Date.now() - started} ms)\n      ${String((error as Error).stack ?? error)
            .split('\n')
            .slice(0, 6)
            .join('\n      ')}`,
        );
        if (onFailure) await onFailure(name).catch(() => undefined);
      }
    }
  }
}

export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertEqual<T>(actual: T, expected: T, what: string): void {
  if (actual !== expected)
    throw new AssertionError(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
