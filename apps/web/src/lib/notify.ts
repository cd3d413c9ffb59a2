import type { NotificationData } from '@mantine/notifications';
import { describeError } from '../api/errors';
import { currentUiLocale, i18n } from '../i18n';

export const NOTIFY_MS = 5000;

// The notifications package is one module: fetched with the first message, not with the first page.
// The text is worked out at once (in the language of the moment); only the showing waits.
function show(data: NotificationData): void {
  void import('@mantine/notifications').then(({ notifications }) => notifications.show(data));
}

export function notifyError(error: unknown): void {
  show({
    color: 'red',
    message: describeError(error, currentUiLocale(), i18n.t('errors.network')),
    autoClose: NOTIFY_MS,
  });
}

export function notifySuccess(message: string): void {
  show({ color: 'teal', message, autoClose: NOTIFY_MS });
}

export function notifyInfo(message: string): void {
  show({ color: 'blue', message, autoClose: NOTIFY_MS });
}
