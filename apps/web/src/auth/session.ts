import { createAnonymousAccount, endSession, fetchMe } from '../api/accounts';
import { requestQueue } from '../api/client';
import { describeDevice } from '../api/device';
import { getOrCreateUdid, getSid, saveSid } from '../api/storage';
import { queryClient, queryHooks } from '../lib/query-client';
import { bootstrapSession } from './bootstrap';
import { SessionController } from './session-controller';

/** Whether a session id was stored when the page loaded (read once, before start-up changes it). */
export const hadStoredSid = getSid() !== null;

export const session = new SessionController({
  queue: requestQueue,
  queryClient,
  saveSid,
  endSession,
  bootstrap: () =>
    bootstrapSession({
      storedSid: getSid,
      saveSid,
      fetchMe: () => fetchMe({ bypassQueue: true }),
      createAnonymous: () =>
        createAnonymousAccount(describeDevice(navigator.userAgent, getOrCreateUdid()), document.referrer || undefined),
    }),
});

queryHooks.onUnauthenticated = () => session.sessionLost();
