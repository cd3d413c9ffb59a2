import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@polyvox/contracts';
import { AppError } from '../../platform/errors.js';
import type { SynthesisJobsTable } from '../../platform/db/schema.js';
import type { JobProgress, JobStatus } from './rows.js';

export interface Job {
  id: string;
  accountId: string;
  status: JobStatus;
  progress: JobProgress;
  credits: number;
  characters: number;
  contentType: string;
  storageKey: string | null;
  error: AppError | null;
  createdAt: string;
  finishedAt: string | null;
}

const errorParams = z.record(z.string(), z.union([z.string(), z.number()]));
const KNOWN_CODES = new Set<string>(ERROR_CODES);

/**
 * A job row as the API shows it. Its error is read back checked: a code this release does not know reads as
 * `INTERNAL`, params that are not a flat object of strings and numbers as none.
 */
export function toJob(row: SynthesisJobsTable, live?: JobProgress): Job {
  const params = row.error_params ? errorParams.safeParse(safeJson(row.error_params)) : null;
  const code = row.error_code && KNOWN_CODES.has(row.error_code) ? (row.error_code as ErrorCode) : 'INTERNAL';
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status as JobStatus,
    progress: live ?? { done: Number(row.progress_done), total: Number(row.progress_total) },
    credits: Number(row.credits),
    characters: Number(row.characters),
    contentType: row.content_type,
    storageKey: row.storage_key,
    error: row.error_code ? new AppError(code, params?.success ? params.data : {}) : null,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
