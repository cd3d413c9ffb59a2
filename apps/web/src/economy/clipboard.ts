/**
 * Copies a text; 'denied' when the browser refuses (no permission, an insecure origin, no Clipboard
 * API), so the page can ask the user to copy it by hand instead of pretending it worked.
 */
export async function copyText(
  text: string,
  clipboard: Pick<Clipboard, 'writeText'> | null | undefined = globalThis.navigator?.clipboard,
): Promise<'copied' | 'denied'> {
  if (!clipboard) return 'denied';
  try {
    await clipboard.writeText(text);
    return 'copied';
  } catch {
    return 'denied';
  }
}
