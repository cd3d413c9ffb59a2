import type { z } from 'zod';
import type { ModerationHit, ModerationTerm } from '@polyvox/contracts';
import { http } from '../api/client';

export type ModerationTermView = z.infer<typeof ModerationTerm>;
export type ModerationHitView = z.infer<typeof ModerationHit>;

/** The Moderation page's calls (`/admin/api/moderation/…`, permission `moderation.manage`). */
export const moderationApi = {
  terms: () => http<{ items: ModerationTermView[] }>('GET', '/admin/api/moderation/terms'),
  addTerm: (body: { term: string; category: string }) =>
    http<ModerationTermView>('POST', '/admin/api/moderation/terms', { json: body }),
  removeTerm: (id: string) => http<void>('DELETE', `/admin/api/moderation/terms/${encodeURIComponent(id)}`),
  hits: (query: { limit: number; before?: string | undefined; account_id?: string | undefined }) =>
    http<{ items: ModerationHitView[]; next: string | null }>('GET', '/admin/api/moderation/hits', { query }),
};
