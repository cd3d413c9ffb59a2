/**
 * Browser tests of the console, in Chromium driven by playwright-core, against the real server
 * started on a free port with a fresh DATA_DIR. Run: `npx tsx e2e/console.e2e.ts`.
 * `E2E_FLOWS=design,economy` (a comma list) runs only the named flows. Screenshots go to artifacts/screenshots/.
 * The last line printed is "N passed, M failed";
 * the exit code is non-zero when any test failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { economyTests } from './flows/economy';
import { designTests } from './flows/design';
import { libraryTests } from './flows/library';
import { playgroundTests } from './flows/playground';
import { profileEmailTests } from './flows/profile-email';
import { sessionTests } from './flows/session';
import { shellTests } from './flows/shell';
import { wechatTests } from './flows/wechat';
import { Console, launchBrowser } from './lib/browser';
import { env, SHOTS } from './lib/env';
import { Suite } from './lib/harness';
import { ensureConsoleBuild, startServer } from './lib/server';

const FLOWS: Record<string, (suite: Suite) => void> = {
  session: sessionTests,
  shell: shellTests,
  playground: playgroundTests,
  library: libraryTests,
  economy: economyTests,
  design: designTests,
  'profile-email': profileEmailTests,
  wechat: wechatTests,
};
// E2E_FLOWS=design (a comma list) runs only those flows, in the order above; unset, all of them.
const only = (process.env.E2E_FLOWS ?? '')
  .split(',')
  .map((f) => f.trim())
  .filter(Boolean);
for (const name of only) if (!Object.hasOwn(FLOWS, name)) throw new Error(`E2E_FLOWS: no flow named ${name}`);

const suite = new Suite();
// Order matters: the session flow registers, signs out and back in; the shell, playground,
// library, economy, design and profile tests use that account (the playground tests follow one another on one page).
for (const [name, register] of Object.entries(FLOWS)) if (only.length === 0 || only.includes(name)) register(suite);

async function main(): Promise<number> {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const f of fs.readdirSync(SHOTS)) if (f.startsWith('failed-')) fs.rmSync(path.join(SHOTS, f));
  try {
    ensureConsoleBuild();
    env.server = await startServer();
  } catch (error) {
    console.log(`could not start the platform: ${(error as Error).message}`);
    console.log(`0 passed, ${suite.size} failed`);
    return 1;
  }
  const { server } = env;
  try {
    env.browser = await launchBrowser();
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    env.page = await context.newPage();
    env.page.setDefaultTimeout(15_000);
    env.ui = new Console(env.page, server.baseUrl);
    console.log(`console e2e against ${server.baseUrl} (DATA_DIR ${server.dataDir})`);
    await suite.run(
      async (name) => {
        await env.page.screenshot({ path: path.join(SHOTS, `failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`) });
      },
      {
        // A page that stopped answering the driver is left behind; the same context (its storage, so the
        // same signed-in account) gives the next tests a new one.
        recover: async () => {
          const stuck = env.page;
          const fresh = await Promise.race([
            context.newPage(),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no new page')), 15_000)),
          ]);
          fresh.setDefaultTimeout(15_000);
          env.page = fresh;
          env.ui = new Console(fresh, server.baseUrl);
          void stuck.close().catch(() => undefined);
        },
      },
    );
  } catch (error) {
    console.log(`the browser could not start: ${(error as Error).message}`);
    suite.failed = suite.size - suite.passed;
  } finally {
    await env.browser?.close().catch(() => undefined);
    await server.stop();
  }
  if (suite.failed > 0) console.log(`--- server output (tail) ---\n${server.logs().slice(-3000)}`);
  else fs.rmSync(server.dataDir, { recursive: true, force: true }); // kept after a failure, for its outbox and database
  console.log(`${suite.passed} passed, ${suite.failed} failed`);
  return suite.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
