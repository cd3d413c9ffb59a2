import fs from 'node:fs';
import type { FullResult, Reporter, Suite, TestError } from '@playwright/test/reporter';
import { SERVER_LOG } from './global-setup';

/**
 * Closes the run: after a failure the platform's output (tail) and its DATA_DIR (kept, for its outbox and
 * database); then the last line, "N passed, M failed". A test that did not run counts as failed.
 */
export default class SummaryReporter implements Reporter {
  private suite: Suite | undefined;
  private errors = 0;
  private ran = 0;

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
  }

  onError(_error: TestError): void {
    this.errors++;
  }

  onTestEnd(): void {
    this.ran++;
  }

  printsToStdio(): boolean {
    return true;
  }

  onEnd(result: FullResult): void {
    // `--list` runs nothing: there is nothing to sum up.
    if (this.ran === 0 && this.errors === 0 && result.status === 'passed') return;
    const outcomes = (this.suite?.allTests() ?? []).map((t) => t.outcome());
    const passed = outcomes.filter((o) => o === 'expected' || o === 'flaky').length;
    const notRun = outcomes.filter((o) => o === 'skipped').length;
    let failed = outcomes.filter((o) => o === 'unexpected').length + notRun;
    if (failed === 0 && (this.errors > 0 || result.status !== 'passed')) failed = 1;
    const dataDir = process.env.E2E_SERVER ? (JSON.parse(process.env.E2E_SERVER) as { dataDir: string }).dataDir : '';
    if (failed > 0) {
      // Only this run's platform: a log left by an earlier run says nothing about this one.
      if (dataDir && fs.existsSync(SERVER_LOG)) {
        console.log(`--- server output (tail) ---\n${fs.readFileSync(SERVER_LOG, 'utf8').slice(-3000)}`);
      }
      if (dataDir) console.log(`the platform's DATA_DIR is kept: ${dataDir}`);
      if (notRun > 0) console.log(`${notRun} of the failed did not run`);
    } else if (dataDir) {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    console.log(`${passed} passed, ${failed} failed`);
  }
}
