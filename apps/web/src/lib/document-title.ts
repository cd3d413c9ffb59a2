import { useEffect } from 'react';

/** The tab's title for a page: "<page> · Polyvox", in the UI language (the caller passes the translated name). */
export function documentTitle(page: string | null | undefined): string {
  const name = page?.trim();
  return name ? `${name} · Polyvox` : 'Polyvox';
}

export function useDocumentTitle(page: string | null | undefined): void {
  useEffect(() => {
    document.title = documentTitle(page);
  }, [page]);
}
