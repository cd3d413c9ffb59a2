export interface BrowserHints {
  userAgent: string;
  /** navigator.userAgentData.brands, where the browser offers it (Chromium only, secure contexts). */
  brands?: ReadonlyArray<{ brand: string }>;
}

const CHROMIUM_BRANDS = /^(Chromium|Google Chrome|Microsoft Edge|Opera|Brave|HeadlessChrome)$/i;

/** Chromium-based browsers (Chrome, Edge, Opera, Brave, Samsung Internet…): the ones Polyvox supports fully. */
export function isChromiumBased({ userAgent, brands }: BrowserHints): boolean {
  if (brands && brands.length > 0) return brands.some((b) => CHROMIUM_BRANDS.test(b.brand));
  // Firefox and Safari on iOS are WebKit whatever they call themselves.
  if (/Firefox\/|FxiOS\/|CriOS\/|EdgiOS\/|OPiOS\//.test(userAgent)) return false;
  return /\b(Chrome|Chromium|HeadlessChrome)\/\d+/.test(userAgent);
}

export function readBrowserHints(): BrowserHints {
  const nav = navigator as Navigator & { userAgentData?: { brands?: ReadonlyArray<{ brand: string }> } };
  return { userAgent: nav.userAgent, brands: nav.userAgentData?.brands };
}
