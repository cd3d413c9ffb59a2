import { currentUiLocale } from '../i18n';
import { CLIENT_VERSION } from '../version';
import { createHttp } from './http';
import { RequestQueue } from './queue';
import { getSid } from './storage';

/** The one queue and HTTP client of the console. */
export const requestQueue = new RequestQueue();

export const http = createHttp({
  queue: requestQueue,
  getSid,
  getLang: currentUiLocale,
  clientVersion: CLIENT_VERSION,
});
