import fs from 'node:fs/promises';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { Client } from '../support/client.js';
import { DIALECTS, startTestApp, type TestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';

interface Received {
  mail: ParsedMail;
  from: string | undefined;
  to: string[];
  user: string | undefined;
}

/** A real SMTP server on a free loopback port; with `auth`, it accepts only those credentials. */
async function startSmtp(auth?: { user: string; pass: string }) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(a, _session, callback) {
      if (auth && a.username === auth.user && a.password === auth.pass) callback(null, { user: a.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            mail,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
          });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { received, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

// Mail does not touch the database itself, but the codes it carries are stored there: run on both.
describe.each(DIALECTS)('mail over SMTP (%s)', (dialect) => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp(dialect, {
      env: { MAIL_URL: `smtp://127.0.0.1:${smtp.port}?tls=off`, MAIL_FROM: 'Polyvox <codes@polyvox.test>' },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends the code through the SMTP server, and that code signs in', async () => {
    const address = `smtp-${dialect}@example.com`;
    const c = new Client(t.url);
    expect((await c.post('/verification/email', { email: address })).body).toEqual({ resend_after: 60 });
    expect(smtp.received).toHaveLength(1);
    const { mail, from, to } = smtp.received[0]!;
    expect(from).toBe('codes@polyvox.test');
    expect(to).toEqual([address]);
    expect(mail.subject).toBe('Your Polyvox sign-in code');
    expect(mail.from?.value[0]?.address).toBe('codes@polyvox.test');
    const vcode = /\b(\d{6})\b/.exec(mail.text ?? '')?.[1];
    expect(vcode).toMatch(/^\d{6}$/);
    const res = await c.post('/auth/email', { email: address, vcode });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ email: address, anonymous: false });
    // SMTP replaces the outbox: nothing is written there.
    expect(await fs.readdir(t.outbox).catch(() => [])).toEqual([]);
  });

  it('writes the mail in the language of the request', async () => {
    const address = `smtp-tw-${dialect}@example.com`;
    expect((await new Client(t.url, 'zh-TW').post('/verification/email', { email: address })).status).toBe(200);
    const mail = smtp.received.find((r) => r.to.includes(address))!.mail;
    expect(mail.subject).toBe('Polyvox 登入驗證碼');
    expect(mail.text).toMatch(/你的 Polyvox 登入驗證碼是 \d{6}/);
  });

  it('logs in to the SMTP server with the credentials of MAIL_URL', async () => {
    const secured = await startSmtp({ user: 'mailer@polyvox.test', pass: 'p@ss:w/rd' });
    const app = await startTestApp(dialect, {
      env: {
        MAIL_URL: `smtp://${encodeURIComponent('mailer@polyvox.test')}:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${secured.port}?tls=off`,
      },
    });
    try {
      const address = `smtp-auth-${dialect}@example.com`;
      expect((await new Client(app.url).post('/verification/email', { email: address })).status).toBe(200);
      expect(secured.received.map((r) => [r.user, r.to])).toEqual([['mailer@polyvox.test', [address]]]);
    } finally {
      await app.close();
      await secured.close();
    }
  });

  it('answers 500 without internals when the SMTP server cannot be reached', async () => {
    const port = await closedPort();
    const app = await startTestApp(dialect, { env: { MAIL_URL: `smtp://127.0.0.1:${port}?tls=off` } });
    try {
      const c = new Client(app.url);
      const res = await c.post('/verification/email', { email: `smtp-down-${dialect}@example.com` });
      expect(expectError(res, 'INTERNAL', 500).message).toBe('Something went wrong, please try again later');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|smtp|connect/i);
      // The undelivered code holds nothing back: asking again is not a cooldown.
      expectError(await c.post('/verification/email', { email: `smtp-down-${dialect}@example.com` }), 'INTERNAL', 500);
    } finally {
      await app.close();
    }
  });
});
