import { currentUiLocale } from '../i18n';
import { CLIENT_VERSION } from '../version';
import { createHttp } from './http';
import { RequestQueue } from './queue';
import type { UploadDeps, UploadXhr } from './upload';
import { getSid } from './storage';

/** The one queue and HTTP client of the console. */
export const requestQueue = new RequestQueue();

export const http = createHttp({
  queue: requestQueue,
  getSid,
  getLang: currentUiLocale,
  clientVersion: CLIENT_VERSION,
});

/** What an upload with progress sends through: the browser's XMLHttpRequest, this origin, the session, the UI language. */
export function browserUploadDeps(): UploadDeps {
  return {
    xhr: () => new XMLHttpRequest() as unknown as UploadXhr,
    baseUrl: window.location.origin,
    sid: getSid(),
    lang: currentUiLocale(),
  };
}
