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

  /**
   * Runs the tests in order. A test still running after `timeoutMs` is stopped waiting for: the browser
   * driver can wait for ever on a page that never answers. `recover` then gives the next tests a fresh
   * page, and a test that hung is run once more on it (logged as such); a second hang or any failed
   * assertion counts as a failure.
   */
  async run(
    onFailure?: (name: string) => Promise<void>,
    opts: { timeoutMs?: number; recover?: () => Promise<void> } = {},
  ): Promise<void> {
    const timeoutMs = opts.timeoutMs ?? 180_000;
    for (const { name, fn } of this.entries) {
      for (let attempt = 1; ; attempt++) {
        const started = Date.now();
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TestTimeout(`no answer after ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          await Promise.race([fn(), hung]);
          this.passed++;
          console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
          break;
        } catch (error) {
          const recovered =
            error instanceof TestTimeout && opts.recover
              ? await opts.recover().then(
                  () => true,
                  () => false,
                )
              : false;
          if (recovered && attempt === 1) {
            console.log(`  ↻ ${name}: ${(error as Error).message}; run again on a fresh page`);
            continue;
          }
          this.failed++;
          console.log(
            `  ✗ ${name} (${Date.now() - started} ms)\n      ${String((error as Error).stack ?? error)
              .split('\n')
              .slice(0, 6)
              .join('\n      ')}`,
          );
          if (onFailure) await onFailure(name).catch(() => undefined);
          break;
        } finally {
          clearTimeout(timer);
        }
      }
    }
  }
}

class TestTimeout extends Error {
  override name = 'TestTimeout';
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
