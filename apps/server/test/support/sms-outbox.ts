import fs from 'node:fs/promises';
import path from 'node:path';

/** The messages in a file SMS outbox (`SMS_URL=file://…`), oldest first: number and text. */
export async function smsIn(dir: string): Promise<{ to: string; text: string }[]> {
  const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.txt')).sort();
  return Promise.all(
    files.map(async (f) => {
      const raw = await fs.readFile(path.join(dir, f), 'utf8');
      const [head = '', ...rest] = raw.split('\n\n');
      return { to: head.replace(/^To: /, '').trim(), text: rest.join('\n\n').trim() };
    }),
  );
}

/** The newest code texted to `e164`. */
export async function codeFromSms(dir: string, e164: string): Promise<string> {
  const mine = (await smsIn(dir)).filter((m) => m.to === e164);
  const code = /\b(\d{6})\b/.exec(mine.at(-1)?.text ?? '')?.[1];
  if (!code) throw new Error(`no code texted to ${e164}`);
  return code;
}
