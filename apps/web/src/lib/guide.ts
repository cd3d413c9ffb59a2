/**
 * The documentation site the server serves at /guide/ (docs/site): English at its root, Simplified Chinese under zh/,
 * which Traditional Chinese readers get too (the site has no Traditional Chinese pages).
 */
export function guideUrl(language: string, page = ''): string {
  return `/guide/${language.startsWith('zh') ? 'zh/' : ''}${page}`;
}
