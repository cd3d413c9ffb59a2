/**
 * Browser tests of the console: @playwright/test drives Chromium against the real server, started once for the
 * run on a free port with a fresh DATA_DIR (lib/global-setup.ts). Run: `npm run test:browser`.
 * `E2E_FLOWS=session,design` (a comma list) runs only the named flows, in the order below.
 * Screenshots the tests take go to artifacts/screenshots/; those of failed tests and each test's output to
 * artifacts/e2e/; the JSON report to artifacts/playwright-report.json. The last line printed is "N passed, M failed".
 */
import { a11yTests, consoleListTests } from './flows/a11y';
import { adminAccountsTests } from './flows/admin-accounts';
import { adminEnginesTests } from './flows/admin-engines';
import { adminCoreTests } from './flows/admin-core';
import { adminCodesTests } from './flows/admin-codes';
import { adminPasskeyTests } from './flows/admin-passkey';
import { adminOrdersTests } from './flows/admin-orders';
import { adminModerationTests } from './flows/admin-moderation';
import { adminReportsTests } from './flows/admin-reports';
import { adminRetentionTests } from './flows/admin-retention';
import { designTests } from './flows/design';
import { dialogueTests } from './flows/dialogue';
import { economyTests } from './flows/economy';
import { historyTests } from './flows/history';
import { libraryTests } from './flows/library';
import { phoneTests } from './flows/phone';
import { playgroundTests } from './flows/playground';
import { polishTests } from './flows/polish';
import { profileEmailTests } from './flows/profile-email';
import { pronunciationTests } from './flows/pronunciation';
import { provenanceTests } from './flows/provenance';
import { referenceTests } from './flows/reference';
import { sessionTests } from './flows/session';
import { shellTests } from './flows/shell';
import { studioTests } from './flows/studio';
import { uxTests } from './flows/ux';
import { wechatTests } from './flows/wechat';
import { test } from './lib/fixtures';

const FLOWS: Record<string, () => void> = {
  session: sessionTests,
  shell: shellTests,
  playground: playgroundTests,
  library: libraryTests,
  economy: economyTests,
  design: designTests,
  'profile-email': profileEmailTests,
  // Its own context and accounts: the page's account is untouched.
  phone: phoneTests,
  wechat: wechatTests,
  a11y: a11yTests,
  lists: consoleListTests,
  ux: uxTests,
  reference: referenceTests,
  provenance: provenanceTests,
  pronunciation: pronunciationTests,
  dialogue: dialogueTests,
  studio: studioTests,
  history: historyTests,
  polish: polishTests,
  // The customer above becomes the operator here: admin-core names it owner (its first test needs a customer),
  // the flows after it reuse that elevated session, or name their own operator when run alone.
  'admin-core': adminCoreTests,
  // Locks the owner's session and opens it again with a passkey: the flows after it find it elevated as before.
  'admin-passkey': adminPasskeyTests,
  'admin-accounts': adminAccountsTests,
  'admin-engines': adminEnginesTests,
  'admin-codes': adminCodesTests,
  'admin-orders': adminOrdersTests,
  'admin-moderation': adminModerationTests,
  // Reports: the form from the console's footer, then the queue (it reuses the elevated owner, or names a support operator).
  'admin-reports': adminReportsTests,
  // A deleted clone's sample and consent on the account's page, opened with a reason (owner named here when alone).
  'admin-retention': adminRetentionTests,
};
// E2E_FLOWS=design (a comma list) runs only those flows, in the order above; unset, all of them.
const only = (process.env.E2E_FLOWS ?? '')
  .split(',')
  .map((f) => f.trim())
  .filter(Boolean);
for (const name of only) if (!Object.hasOwn(FLOWS, name)) throw new Error(`E2E_FLOWS: no flow named ${name}`);

// Order matters: the session flow registers, signs out and back in; the shell, playground, library, economy,
// design and profile tests use that account (the playground tests follow one another on one page).
for (const [name, register] of Object.entries(FLOWS)) if (only.length === 0 || only.includes(name)) test.describe(name, register);
