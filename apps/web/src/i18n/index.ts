import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { UiLocale } from '@polyvox/contracts';
import { en } from './en';
import { zhCN } from './zh-CN';
import { zhTW } from './zh-TW';
import { LANG_STORAGE_KEY, resolveChoice, type LocaleChoice } from './locale';

function readStored(): string | null {
  try {
    return localStorage.getItem(LANG_STORAGE_KEY);
  } catch {
    return null;
  }
}

let current: LocaleChoice = resolveChoice(readStored());
const listeners = new Set<() => void>();

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, 'zh-CN': { translation: zhCN }, 'zh-TW': { translation: zhTW } },
  lng: current.ui,
  fallbackLng: 'en',
  supportedLngs: ['en', 'zh-CN', 'zh-TW'],
  load: 'currentOnly',
  interpolation: { escapeValue: false },
  showSupportNotice: false,
});
document.documentElement.lang = current.ui;

export const i18n = i18next;

/** The UI locale sent as `lang` with every request. */
export function currentUiLocale(): UiLocale {
  return current.ui;
}

export function currentChoice(): LocaleChoice {
  return current;
}

export function subscribeLocale(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function chooseLocale(code: string): Promise<void> {
  const next = resolveChoice(code);
  current = next;
  try {
    localStorage.setItem(LANG_STORAGE_KEY, next.choice);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  document.documentElement.lang = next.ui;
  await i18next.changeLanguage(next.ui);
  listeners.forEach((l) => l());
}
