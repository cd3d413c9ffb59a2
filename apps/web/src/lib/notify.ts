import { notifications } from '@mantine/notifications';
import { describeError } from '../api/errors';
import { currentUiLocale, i18n } from '../i18n';

export const NOTIFY_MS = 5000;

export function notifyError(error: unknown): void {
  notifications.show({
    color: 'red',
    message: describeError(error, currentUiLocale(), i18n.t('errors.network')),
    autoClose: NOTIFY_MS,
  });
}

export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', message, autoClose: NOTIFY_MS });
}

export function notifyInfo(message: string): void {
  notifications.show({ color: 'blue', message, autoClose: NOTIFY_MS });
}
