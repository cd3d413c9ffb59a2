import { postForm, type UploadDeps, type UploadProgress } from '../api/upload';
import type { CloneSample } from './types';

export { xhrError, type UploadDeps, type UploadProgress, type UploadXhr } from '../api/upload';

/** POST /files_upload?type=clone with progress. The server judges the file; its errors come back as ApiError. */
export function sendSample(
  file: Blob,
  fileName: string,
  onProgress: (p: UploadProgress) => void,
  deps: UploadDeps,
  signal?: AbortSignal,
): Promise<CloneSample> {
  const form = new FormData();
  // The consent field comes before the file, so the server reads it before the bytes.
  form.append('consent', 'true');
  form.append('file', file, fileName);
  return postForm<CloneSample>(
    { path: '/files_upload', query: { type: 'clone' }, form, size: file.size },
    onProgress,
    deps,
    signal,
  );
}
