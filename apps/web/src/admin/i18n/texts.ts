import type { UiLocale } from '@polyvox/contracts';
import { useLocaleChoice } from '../../i18n/hooks';

/**
 * An admin page's texts, in the three languages, carried by the page's own chunk (the customer's first page never
 * loads them): the one of the interface's language, English when it has none.
 */
export function useTexts<T>(byLocale: Record<UiLocale, T>): T {
  const { ui } = useLocaleChoice();
  return byLocale[ui] ?? byLocale.en;
}

/** `{name}` placeholders filled from `params`. */
export function fill(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(params, key) ? String(params[key]) : whole));
}
