import { isApiError } from '../api/errors';

/**
 * A route this server does not have yet: the Studio's conversion and export routes arrive on their own branches, and
 * until then the server answers 404 to them. Asked only of calls on a project the page has just loaded (so the
 * project itself exists): the control shows disabled with a note instead of an error.
 */
export function isMissingRoute(error: unknown): boolean {
  return isApiError(error) && error.status === 404;
}
