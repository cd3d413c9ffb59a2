import { browserUploadDeps, requestQueue } from '../api/client';
import { postForm, type UploadProgress } from '../api/upload';
import type { Verification } from './types';

export * from './types';
export type { UploadProgress };

/**
 * POST /provenance/verify with the file, reporting the upload's progress. No sign-in is needed;
 * a signed-in owner's session makes the server add which record made the audio.
 */
export function verifyFile(file: File, onProgress: (p: UploadProgress) => void, signal?: AbortSignal): Promise<Verification> {
  const form = new FormData();
  form.append('file', file, file.name);
  return requestQueue.enqueue(() =>
    postForm<Verification>({ path: '/provenance/verify', form, size: file.size }, onProgress, browserUploadDeps(), signal),
  );
}
