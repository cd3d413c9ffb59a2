import { http } from './client';

export type DocName = 'terms' | 'privacy' | 'updates';

export interface DocPage {
  name: string;
  title: string;
  content: string;
  updated_at: string | null;
}

export function fetchDoc(name: DocName): Promise<DocPage> {
  return http('GET', `/docs/${name}`);
}
