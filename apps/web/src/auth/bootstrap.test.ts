import { describe, expect, it, vi } from 'vitest';
import type { Account } from '@polyvox/contracts';
import { ApiError } from '../api/errors';
import { bootstrapSession, type BootstrapDeps } from './bootstrap';

const account = (over: Partial<Account> = {}) => ({ id: 'acc_1', anonymous: true, ...over }) as Account;

function deps(over: Partial<BootstrapDeps> & { sid?: string | null } = {}) {
  let sid = over.sid ?? null;
  const d = {
    storedSid: () => sid,
    saveSid: vi.fn((s: string | null) => {
      sid = s;
    }),
    fetchMe: vi.fn(async () => account({ id: 'acc_me', anonymous: false })),
    createAnonymous: vi.fn(async () => ({ account: account({ id: 'acc_new' }), sid: 'sid_new' })),
    ...over,
  };
  return { d, sid: () => sid };
}

describe('bootstrapSession', () => {
  it('creates an anonymous account on a first visit and stores its sid', async () => {
    const { d, sid } = deps();
    const res = await bootstrapSession(d);
    expect(res).toEqual({ account: expect.objectContaining({ id: 'acc_new' }), loginFailed: false });
    expect(d.fetchMe).not.toHaveBeenCalled();
    expect(sid()).toBe('sid_new');
  });

  it('confirms a stored session with GET /accounts/me', async () => {
    const { d, sid } = deps({ sid: 'sid_old' });
    const res = await bootstrapSession(d);
    expect(res.account.id).toBe('acc_me');
    expect(res.loginFailed).toBe(false);
    expect(d.createAnonymous).not.toHaveBeenCalled();
    expect(sid()).toBe('sid_old');
  });

  it('replaces a refused session (401) with a new anonymous account and reports the failed login', async () => {
    const { d, sid } = deps({
      sid: 'sid_old',
      fetchMe: vi.fn(async () => {
        throw new ApiError({ status: 401, code: 'UNAUTHENTICATED', message: '' });
      }),
    });
    const res = await bootstrapSession(d);
    expect(res.loginFailed).toBe(true);
    expect(res.account.id).toBe('acc_new');
    expect(sid()).toBe('sid_new');
  });

  it('keeps the stored sid and fails when the server cannot be reached', async () => {
    const offline = new ApiError({ status: 0, code: 'NETWORK', message: '' });
    const { d, sid } = deps({
      sid: 'sid_old',
      fetchMe: vi.fn(async () => {
        throw offline;
      }),
    });
    await expect(bootstrapSession(d)).rejects.toBe(offline);
    expect(d.createAnonymous).not.toHaveBeenCalled();
    expect(sid()).toBe('sid_old');
  });
});
