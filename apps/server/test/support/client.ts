import fs from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small HTTP client over fetch that keeps the session it is given. */
export class Client {
  sid: string | null = null;
  constructor(
    readonly base: string,
    private readonly lang?: string,
  ) {}

  async request<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const target = new URL(url, this.base);
    if (this.lang) target.searchParams.set('lang', this.lang);
    const init: RequestInit = { method, headers: { ...headers } };
    if (this.sid && !('x-sid' in headers) && !('authorization' in headers) && !('cookie' in headers)) {
      (init.headers as Record<string, string>)['x-sid'] = this.sid;
    }
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await fetch(target, init);
    const text = await res.text();
    let parsed: unknown = text;
    if (res.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(url: string, headers?: Record<string, string>) {
    return this.request<T>('GET', url, undefined, headers);
  }
  post<T = any>(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, body, headers);
  }
  put<T = any>(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', url, body, headers);
  }
  delete<T = any>(url: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', url, undefined, headers);
  }

  async anonymous(udid = `web-${Math.random().toString(36).slice(2)}`) {
    const res = await this.post('/accounts/anonymous', { device: { udid, model: 'Chrome', brand: 'other', os: 'other' } });
    if (res.status !== 201) throw new Error(`anonymous failed: ${res.status} ${JSON.stringify(res.body)}`);
    this.sid = res.body.sid;
    return res.body;
  }
}

/** Reads the newest code mailed to `email` from the .eml outbox. */
export async function codeFromOutbox(outbox: string, email: string): Promise<string> {
  const files = (await fs.readdir(outbox).catch(() => [])).filter((f) => f.endsWith('.eml')).sort();
  for (const file of files.reverse()) {
    const mail = await simpleParser(await fs.readFile(path.join(outbox, file)));
    const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
    if (to?.value.some((v) => v.address?.toLowerCase() === email.toLowerCase())) {
      const code = /\b(\d{6})\b/.exec(mail.text ?? '')?.[1];
      if (code) return code;
    }
  }
  throw new Error(`no code mailed to ${email}`);
}

/** Signs the client in (registering a new email) and returns the account. */
export async function signIn(client: Client, outbox: string, email: string) {
  const sent = await client.post('/verification/email', { email });
  if (sent.status !== 200) throw new Error(`send failed ${sent.status} ${JSON.stringify(sent.body)}`);
  const vcode = await codeFromOutbox(outbox, email);
  const res = await client.post('/auth/email', { email, vcode });
  if (res.status !== 200) throw new Error(`sign-in failed ${res.status} ${JSON.stringify(res.body)}`);
  client.sid = res.body.sid;
  return res.body.account;
}
