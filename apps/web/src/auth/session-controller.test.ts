import { describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Account } from '@polyvox/contracts';
import { RequestQueue } from '../api/queue';
import type { BootstrapResult } from './bootstrap';
import { ME_KEY, SessionController } from './session-controller';

const acc = (id: string, anonymous: boolean) => ({ id, anonymous }) as Account;

function setup(bootstrap: () => Promise<BootstrapResult>) {
  const queue = new RequestQueue();
  const queryClient = new QueryClient();
  const saveSid = vi.fn();
  const endSession = vi.fn(async () => undefined);
  const controller = new SessionController({ queue, queryClient, bootstrap, saveSid, endSession });
  return { queue, queryClient, saveSid, endSession, controller };
}

describe('SessionController', () => {
  it('opens the queue and caches the account once start-up is done', async () => {
    const { queue, queryClient, controller } = setup(async () => ({ account: acc('a', true), loginFailed: false }));
    const start = controller.start();
    expect(controller.getSnapshot().status).toBe('booting');
    expect(queue.status).toBe('waiting');
    await start;
    expect(controller.getSnapshot()).toEqual({ status: 'ready', loginFailed: false });
    expect(queue.status).toBe('ready');
    expect(queryClient.getQueryData(ME_KEY)).toEqual(acc('a', true));
  });

  it('starts once however often it is asked while running', async () => {
    const bootstrap = vi.fn(async () => ({ account: acc('a', true), loginFailed: false }));
    const { controller } = setup(bootstrap);
    await Promise.all([controller.start(), controller.start()]);
    expect(bootstrap).toHaveBeenCalledTimes(1);
  });

  it('fails the queue when start-up fails', async () => {
    const { queue, controller } = setup(async () => {
      throw new Error('offline');
    });
    await controller.start();
    expect(controller.getSnapshot().status).toBe('failed');
    expect(queue.status).toBe('failed');
  });

  it('adopts a signed-in session and drops what the previous account had cached', async () => {
    const { queryClient, saveSid, controller } = setup(async () => ({ account: acc('a', true), loginFailed: false }));
    await controller.start();
    queryClient.setQueryData(['voices'], ['v1']);
    controller.adopt({ account: acc('b', false), sid: 'sid_b' });
    expect(saveSid).toHaveBeenCalledWith('sid_b');
    expect(queryClient.getQueryData(ME_KEY)).toEqual(acc('b', false));
    expect(queryClient.getQueryData(['voices'])).toBeUndefined();
  });

  it('signs out: ends the session, forgets the sid, and starts a new anonymous one', async () => {
    let n = 0;
    const { saveSid, endSession, queryClient, controller } = setup(async () => ({
      account: acc(`anon${++n}`, true),
      loginFailed: false,
    }));
    await controller.start();
    controller.adopt({ account: acc('b', false), sid: 'sid_b' });
    const out = controller.signOut();
    expect(controller.getSnapshot().status).toBe('booting');
    await out;
    expect(endSession).toHaveBeenCalledTimes(1);
    expect(saveSid).toHaveBeenLastCalledWith(null);
    expect(queryClient.getQueryData(ME_KEY)).toEqual(acc('anon2', true));
    expect(controller.getSnapshot().status).toBe('ready');
  });

  it('keeps the login failure until the guard acknowledges it', async () => {
    const { controller } = setup(async () => ({ account: acc('a', true), loginFailed: true }));
    await controller.start();
    expect(controller.getSnapshot().loginFailed).toBe(true);
    controller.acknowledgeLoginFailure();
    expect(controller.getSnapshot().loginFailed).toBe(false);
  });
});
