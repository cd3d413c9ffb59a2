import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Chooses the transport from MAIL_URL: file://dir writes .eml files, smtp(s):// sends over SMTP. */
export function createMailer(mailUrl: string, from: string): Mailer {
  const url = new URL(mailUrl);
  switch (url.protocol) {
    case 'file:':
      return fileMailer(fileURLToPath(url), from);
    case 'smtp:':
    case 'smtps:':
      return smtpMailer(mailUrl, from);
    default:
      throw new Error(`MAIL_URL: unsupported scheme ${url.protocol}`);
  }
}

function fileMailer(dir: string, from: string): Mailer {
  // nodemailer's stream transport renders a complete RFC 5322 message without sending it.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from, ...message } satisfies Mail.Options);
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      // File names are capped (255 bytes on most file systems) and an address may be 254 characters:
      // a readable prefix plus a hash of the whole address keeps names short and distinct.
      const safeTo = message.to.replace(/[^a-zA-Z0-9@._-]/g, '_').slice(0, 64);
      const toHash = createHash('sha256').update(message.to).digest('hex').slice(0, 12);
      const name = `${stamp}-${safeTo}-${toHash}-${info.messageId.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12)}.eml`;
      const tmp = path.join(dir, `.${name}.tmp`);
      // Messages hold sign-in codes: readable by the server's user only.
      await fs.writeFile(tmp, info.message as Buffer, { mode: 0o600 });
      await fs.rename(tmp, path.join(dir, name));
    },
    close() {
      transport.close();
    },
  };
}

function smtpMailer(mailUrl: string, from: string): Mailer {
  const url = new URL(mailUrl);
  const insecure = url.searchParams.get('tls') === 'off';
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
    secure: url.protocol === 'smtps:',
    ignoreTLS: insecure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
  });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close() {
      transport.close();
    },
  };
}
