import { generate } from 'otplib';
import type { OperatorRole } from '@polyvox/contracts';
import type { TestApp } from './app.js';
import { Client, signIn } from './client.js';

/** The server a test runs (support/app.ts). */
export type TestServer = TestApp;

let n = 0;

/** The current TOTP code of a secret, at the operators' clock of the server (or at `at`). */
export async function totpCode(server: TestServer, secret: string, at?: Date): Promise<string> {
  const epoch = Math.floor((at ?? server.ctx.operators.clock.now()).getTime() / 1000);
  return generate({ secret, epoch });
}

/** A signed-in account named an operator in `role`, whose session has NOT passed the second factor yet. */
export async function makePendingOperator(server: TestServer, role: OperatorRole, lang = 'en') {
  const client = new Client(server.url, lang);
  await client.anonymous();
  const email = `op-${role}-${process.pid}-${++n}@example.com`;
  const account = (await signIn(client, server.outbox, email)) as { id: string };
  await server.ctx.operators.add(email, role, null);
  return { client, sid: client.sid!, accountId: account.id, email };
}

/**
 * A signed-in account holding `role` whose session has passed TOTP (enrolled and confirmed through the routes).
 * Also gives its client (the session set), its email, TOTP secret and recovery codes.
 */
export async function makeOperator(server: TestServer, role: OperatorRole, lang = 'en') {
  const pending = await makePendingOperator(server, role, lang);
  const enrolled = await pending.client.post('/admin/api/auth/totp/enrol');
  if (enrolled.status !== 200) throw new Error(`enrol failed ${enrolled.status} ${JSON.stringify(enrolled.body)}`);
  const { secret, recovery_codes } = enrolled.body as { secret: string; recovery_codes: string[] };
  const confirmed = await pending.client.post('/admin/api/auth/totp/confirm', { code: await totpCode(server, secret) });
  if (confirmed.status !== 200) throw new Error(`confirm failed ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { ...pending, secret, recoveryCodes: recovery_codes };
}

/** Another session of the same account (as a second sign-in makes), which has not passed the second factor. */
export async function anotherSession(server: TestServer, accountId: string, lang = 'en'): Promise<Client> {
  const client = new Client(server.url, lang);
  client.sid = await server.ctx.sessions.create(accountId, 'test');
  return client;
}
