import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { UiLocale } from '@polyvox/contracts';
import type { Messages } from './types';
import { LANG_STORAGE_KEY, resolveChoice, type LocaleChoice } from './locale';

function readStored(): string | null {
  try {
    return localStorage.getItem(LANG_STORAGE_KEY);
  } catch {
    return null;
  }
}

function browserLanguages(): readonly string[] {
  return typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
}

let current: LocaleChoice = resolveChoice(readStored(), browserLanguages());
const listeners = new Set<() => void>();

/** Each translation is its own chunk: the first page carries only the one it shows. */
const LOADERS = new Map<UiLocale, () => Promise<Messages>>([
  ['en', async () => (await import('./en')).en],
  ['zh-CN', async () => (await import('./zh-CN')).zhCN],
  ['zh-TW', async () => (await import('./zh-TW')).zhTW],
]);

async function loadTranslation(ui: UiLocale): Promise<void> {
  if (i18next.hasResourceBundle(ui, 'translation')) return;
  const messages = await LOADERS.get(ui)!();
  i18next.addResourceBundle(ui, 'translation', messages, true, true);
}

/** Resolves once the shown translation is in: the console renders after it. */
export const i18nReady: Promise<unknown> = i18next
  .use(initReactI18next)
  .init({
    resources: {},
    partialBundledLanguages: true,
    lng: current.ui,
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh-CN', 'zh-TW'],
    load: 'currentOnly',
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  })
  .then(() => loadTranslation(current.ui))
  .then(() => i18next.changeLanguage(current.ui));
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
  await loadTranslation(next.ui);
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
