import { runAdmin } from '../../src/admin/cli.js';
import type { TestApp } from './app.js';

/** What one `npm run admin -- …` answered: its exit code and what it wrote. */
export interface AdminRun {
  code: number;
  out: string;
  err: string;
}

/**
 * The operator's command line on a test app's platform: its environment (the app's DATA_DIR and database, plus
 * `settings`, the providers' say) and `run(...argv)`, which runs a command in this process and collects its output.
 */
export function adminCli(t: TestApp, settings: Record<string, string> = {}) {
  const env: Record<string, string> = {
    ...settings,
    DATA_DIR: t.dataDir,
    ...(t.ctx.config.DATABASE_URL ? { DATABASE_URL: t.ctx.config.DATABASE_URL } : {}),
    LOG_LEVEL: 'silent',
  };
  async function run(...argv: string[]): Promise<AdminRun> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  return { env, run };
}
