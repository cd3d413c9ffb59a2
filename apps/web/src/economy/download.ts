/** Saves a blob the console fetched (with the session) as a file the browser downloads. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked once the download has taken the bytes.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
