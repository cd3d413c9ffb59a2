import type { AdminReport, ReportStatus } from '@polyvox/contracts';
import { http } from '../api/client';

export interface ProtectedVoiceView {
  id: string;
  name: string;
  category: 'public_figure' | 'library' | 'taken_down' | 'other';
  source_voice_id: string | null;
  report_id: string | null;
  has_sample: boolean;
  created_by: string;
  created_at: string;
}

export type ReportAction = 'review' | 'reject' | 'takedown' | 'disable-account' | 'protect';

const path = (id: string, action: ReportAction) => `/admin/api/reports/${encodeURIComponent(id)}/${action}`;

/** The reports queue and the protected voices (`/admin/api/reports…`, `/admin/api/protected-voices…`). */
export const reportsApi = {
  list: (status: ReportStatus | undefined, page: number) =>
    http<{ items: AdminReport[]; total: number; page: number; page_size: number }>('GET', '/admin/api/reports', {
      query: { status, page, page_size: 20 },
    }),
  act: (id: string, action: ReportAction, body: { reason: string; name?: string }) =>
    http<AdminReport>('POST', path(id, action), { json: body }),
  audioUrl: (id: string) => `/admin/api/reports/${encodeURIComponent(id)}/audio`,
  protectedVoices: (page: number) =>
    http<{ items: ProtectedVoiceView[]; total: number }>('GET', '/admin/api/protected-voices', {
      query: { page, page_size: 50 },
    }),
  protect: (form: FormData) => http<ProtectedVoiceView>('POST', '/admin/api/protected-voices', { form }),
  unprotect: (id: string, reason: string) =>
    http<void>('DELETE', `/admin/api/protected-voices/${encodeURIComponent(id)}`, { query: { reason } }),
};
