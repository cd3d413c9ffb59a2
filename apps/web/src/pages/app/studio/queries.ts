import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  estimateConversion,
  fetchChapter,
  fetchProject,
  listProjects,
  listSnapshots,
  type ProjectDetail,
} from '../../../studio/api';
import { notifyError } from '../../../lib/notify';
import { isMissingRoute } from '../../../studio/missing';

/** Every query of the Studio pages starts with this key: a change refetches what they show. */
export const STUDIO_KEY = 'studio';

/** While the project converts, its state and chapters' progress are asked for again this often. */
export const POLL_MS = 2000;

export function isConverting(project: ProjectDetail | undefined): boolean {
  if (!project) return false;
  return project.state === 'converting' || project.state === 'in_queue' || project.chapters.some((c) => c.state === 'converting');
}

/**
 * Once a conversion ends, everything is asked for again: the polls stop with it, and the last one may have come before
 * the snapshot, the paragraphs' marks and the price were final.
 */
export function useRefreshAfterConversion(converting: boolean): void {
  const client = useQueryClient();
  const was = useRef(converting);
  useEffect(() => {
    if (was.current && !converting) void client.invalidateQueries({ queryKey: [STUDIO_KEY] });
    was.current = converting;
  }, [converting, client]);
}

export function useProjects() {
  return useQuery({
    queryKey: [STUDIO_KEY, 'list'],
    queryFn: ({ signal }) => listProjects(signal),
    // A project queued or converting says so, with its progress: asked again until none is.
    refetchInterval: (query) =>
      query.state.data?.some((p) => p.state === 'converting' || p.state === 'in_queue') ? POLL_MS : false,
  });
}

export function useProject(id: string | undefined) {
  return useQuery({
    queryKey: [STUDIO_KEY, 'project', id],
    queryFn: ({ signal }) => fetchProject(id!, signal),
    enabled: !!id,
    retry: false,
    refetchInterval: (query) => (isConverting(query.state.data) ? POLL_MS : false),
  });
}

export function useChapter(id: string, chapterId: string | undefined, converting: boolean) {
  return useQuery({
    queryKey: [STUDIO_KEY, 'chapter', id, chapterId],
    queryFn: ({ signal }) => fetchChapter(id, chapterId!, signal),
    enabled: !!chapterId,
    retry: false,
    refetchInterval: converting ? POLL_MS : false,
  });
}

/**
 * A route of another branch: `available` is false once it answered 404 (the control shows disabled with its note),
 * true once it answered, undefined while asking.
 */
function optional<T>(query: { data: T | undefined; error: unknown; isSuccess: boolean }) {
  const missing = isMissingRoute(query.error);
  return { available: query.isSuccess ? true : missing ? false : undefined, missing };
}

/** The price of converting the project (or one chapter): also tells whether the conversion routes exist. */
export function useConvertEstimate(id: string, chapterId?: string, version?: string) {
  const query = useQuery({
    queryKey: [STUDIO_KEY, 'estimate', id, chapterId ?? null, version],
    queryFn: ({ signal }) => estimateConversion(id, chapterId, signal),
    retry: false,
    meta: { silent: true },
  });
  return { ...query, ...optional(query) };
}

export function useSnapshots(id: string, converting: boolean) {
  const query = useQuery({
    queryKey: [STUDIO_KEY, 'snapshots', id],
    queryFn: ({ signal }) => listSnapshots(id, signal),
    retry: false,
    meta: { silent: true },
    refetchInterval: converting ? POLL_MS : false,
  });
  return { ...query, ...optional(query) };
}

/**
 * A change to a project, then everything the pages show of it again. A 404 from a route of another branch calls
 * `onMissing` (the page disables the control and says why); any other failure is shown as every error is.
 */
export function useStudioChange<A, R>(fn: (args: A) => Promise<R>, onMissing?: () => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => client.invalidateQueries({ queryKey: [STUDIO_KEY] }),
    onError: (error) => {
      if (onMissing && isMissingRoute(error)) onMissing();
      else notifyError(error);
    },
    meta: { silent: true },
  });
}
