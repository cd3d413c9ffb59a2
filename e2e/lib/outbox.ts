import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';

export interface Mail {
  file: string;
  to: string;
  text: string;
}

async function readMail(file: string): Promise<Mail> {
  const parsed = await simpleParser(fs.readFileSync(file));
  const to = Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(', ') : (parsed.to?.text ?? '');
  return { file, to, text: parsed.text ?? '' };
}

export function listMails(outbox: string): string[] {
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => path.join(outbox, f))
    .sort();
}

/** Waits for a message to `email` that is not among `seen`, and returns the 6-digit code in its text body. */
export async function waitForCode(
  outbox: string,
  email: string,
  seen: ReadonlySet<string>,
  timeoutMs = 45_000,
): Promise<{ code: string; file: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const file of listMails(outbox)) {
      if (seen.has(file)) continue;
      const mail = await readMail(file);
      if (!mail.to.toLowerCase().includes(email.toLowerCase())) continue;
      const match = /\b(\d{6})\b/.exec(mail.text);
      if (!match?.[1]) throw new Error(`the message to ${email} has no 6-digit code: ${mail.text.slice(0, 200)}`);
      return { code: match[1], file };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no new message to ${email} reached ${outbox} within ${timeoutMs / 1000} s`);
}

export async function mailsTo(outbox: string, email: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of listMails(outbox)) {
    const mail = await readMail(file);
    if (mail.to.toLowerCase().includes(email.toLowerCase())) out.push(file);
  }
  return out;
}
