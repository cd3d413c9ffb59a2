import type { NotificationData } from '@mantine/notifications';
import { createElement } from 'react';
import { describeError, isApiError } from '../api/errors';
import { currentUiLocale, i18n } from '../i18n';

export const NOTIFY_MS = 5000;

let wanted = false;
const listeners = new Set<() => void>();

/**
 * Whether any message has been asked for yet: the console mounts the notifications' container (and so fetches its
 * code, about 5 KB over the wire) only from the first message on, never on a first page that shows none.
 */
export function notificationsWanted(): boolean {
  return wanted;
}

export function subscribeNotificationsWanted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// The notifications package is one module: fetched with the first message, not with the first page.
// The text is worked out at once (in the language of the moment); only the showing waits. A message shown before
// the container is mounted waits in the package's store, and the container shows it when it mounts.
function show(data: NotificationData): void {
  if (!wanted) {
    wanted = true;
    listeners.forEach((l) => l());
  }
  // Its close button is named (in the language of the moment) for screen readers, as every button is.
  const named: NotificationData = { ...data, closeButtonProps: { 'aria-label': i18n.t('common.close') } };
  void import('@mantine/notifications').then(({ notifications }) => notifications.show(named));
}

export function notifyError(error: unknown): void {
  // Real-name users (the operator's REAL_NAME=phone): say why, and lead to binding a number on the profile page.
  if (isApiError(error) && error.code === 'REAL_NAME_REQUIRED') {
    show({
      color: 'orange',
      title: describeError(error, currentUiLocale(), i18n.t('errors.network')),
      message: createElement(
        'span',
        { 'data-testid': 'real-name-notice' },
        `${i18n.t('realName.why')} `,
        createElement('a', { href: '#/app/my-profile', 'data-testid': 'real-name-bind' }, i18n.t('realName.bind')),
      ),
      autoClose: NOTIFY_MS * 2,
    });
    return;
  }
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
