import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { createMailer } from '../../src/platform/mail.js';
import { codeMail, emailChangedMail } from '../../src/auth/code-mail.js';
import { loadConfig } from '../../src/platform/config.js';

const FROM = 'Polyvox <no-reply@polyvox.local>';

describe('file mailer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'polyvox-mail-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const emls = async (folder: string) => (await fs.readdir(folder)).sort();

  it('writes one parseable RFC 5322 .eml per message with the code in its text body', async () => {
    const outbox = path.join(dir, 'outbox'); // created on first send
    const mailer = createMailer(`file://${outbox}`, FROM);
    await mailer.send({ to: 'user@example.com', ...codeMail('042917', 'en') });
    mailer.close();
    const files = await emls(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const raw = await fs.readFile(path.join(outbox, files[0]!));
    expect(raw.toString('latin1')).toMatch(/^Message-ID: /im);
    const mail = await simpleParser(raw);
    expect(mail.from?.value).toEqual([{ address: 'no-reply@polyvox.local', name: 'Polyvox' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : null).toBe('user@example.com');
    expect(mail.subject).toBe('Your Polyvox sign-in code');
    expect(mail.text).toContain('Your Polyvox sign-in code is 042917');
    expect(mail.text).toContain('10 minutes');
    expect(mail.messageId).toMatch(/^<.+@.+>$/);
    expect(mail.date).toBeInstanceOf(Date);
  });

  it('keeps Chinese subjects and bodies intact', async () => {
    const mailer = createMailer(`file://${dir}`, FROM);
    await mailer.send({ to: 'a@example.com', ...codeMail('123456', 'zh-CN') });
    await mailer.send({ to: 'b@example.com', ...codeMail('654321', 'zh-TW') });
    const mails = await Promise.all((await emls(dir)).map(async (f) => simpleParser(await fs.readFile(path.join(dir, f)))));
    const byTo = Object.fromEntries(mails.map((m) => [(Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address, m]));
    expect(byTo['a@example.com']).toMatchObject({ subject: 'Polyvox 登录验证码' });
    expect(byTo['a@example.com']!.text).toContain('你的 Polyvox 登录验证码是 123456');
    expect(byTo['b@example.com']).toMatchObject({ subject: 'Polyvox 登入驗證碼' });
    expect(byTo['b@example.com']!.text).toContain('你的 Polyvox 登入驗證碼是 654321');
  });

  it('addresses the reader as 你 in both Chinese scripts, as the console does, never 您', () => {
    for (const locale of ['zh-CN', 'zh-TW'] as const) {
      for (const mail of [codeMail('123456', locale), emailChangedMail('new@example.com', locale)]) {
        expect(mail.subject + mail.text).toContain('你');
        expect(mail.subject + mail.text).not.toContain('您');
      }
    }
  });

  it('never overwrites: many messages to one address at once give as many files, and no temporary ones', async () => {
    const mailer = createMailer(`file://${dir}`, FROM);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => mailer.send({ to: 'same@example.com', ...codeMail(String(100000 + i), 'en') })),
    );
    const files = await fs.readdir(dir);
    expect(files.filter((f) => f.endsWith('.eml'))).toHaveLength(20);
    expect(files.filter((f) => !f.endsWith('.eml'))).toEqual([]);
  });

  it('writes into the default outbox of a DATA_DIR with unusual characters', async () => {
    const dataDir = path.join(dir, 'data #1 100%');
    const config = loadConfig({ DATA_DIR: dataDir });
    const mailer = createMailer(config.MAIL_URL, config.MAIL_FROM);
    await mailer.send({ to: 'x@example.com', ...codeMail('777777', 'en') });
    expect(await emls(path.join(dataDir, 'outbox'))).toHaveLength(1);
  });

  it('names the file of a 254-character address within file-name limits, apart from a near twin', async () => {
    const outbox = path.join(dir, 'long');
    const mailer = createMailer(`file://${outbox}`, FROM);
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(53)}.example`;
    const first = `${'x'.repeat(63)}1@${domain}`;
    const second = `${'x'.repeat(63)}2@${domain}`;
    expect(first).toHaveLength(254);
    await mailer.send({ to: first, ...codeMail('111111', 'en') });
    await mailer.send({ to: second, ...codeMail('222222', 'en') });
    mailer.close();
    const files = await emls(outbox);
    expect(files).toHaveLength(2);
    for (const f of files) expect(Buffer.byteLength(f)).toBeLessThanOrEqual(255);
    const texts = await Promise.all(files.map(async (f) => (await simpleParser(await fs.readFile(path.join(outbox, f)))).text));
    expect(texts.join()).toContain('111111');
    expect(texts.join()).toContain('222222');
  });

  it('falls back to English for another locale and refuses an unknown scheme', () => {
    expect(codeMail('111111', 'fr').subject).toBe('Your Polyvox sign-in code');
    expect(() => createMailer('http://example.com', FROM)).toThrow(/MAIL_URL/);
  });
});
