import { useSyncExternalStore } from 'react';
import { currentChoice, subscribeLocale } from './index';
import type { LocaleChoice } from './locale';

export function useLocaleChoice(): LocaleChoice {
  return useSyncExternalStore(subscribeLocale, currentChoice);
}
