export type SessionStatus = 'booting' | 'ready' | 'failed';

export interface GuardState {
  status: SessionStatus;
  /** A registered (non-anonymous) account is signed in. */
  signedIn: boolean;
  /** A session id was stored when the page loaded, so the user is probably signed in. */
  hasStoredSid: boolean;
}

export type GuardDecision = { kind: 'render' } | { kind: 'wait' } | { kind: 'redirect'; to: string; signInTarget?: string };

export const DEFAULT_AFTER_SIGN_IN = '/app/dashboard';

/** Public pages that a signed-in user skips: home → dashboard, pricing and the audio check → the console's own. */
const SIGNED_IN_REDIRECTS: Record<string, string> = {
  '/': DEFAULT_AFTER_SIGN_IN,
  '/pricing': '/app/pricing',
  '/check': '/app/check',
};

/** A page behind sign-in: the console (/app) and the operator console (/admin), where a sign-in returns. */
export function isAppPath(path: string): boolean {
  return ['/app', '/admin'].some((root) => path === root || path.startsWith(`${root}/`));
}

export function guardPublic(path: string, state: GuardState): GuardDecision {
  const target = Object.hasOwn(SIGNED_IN_REDIRECTS, path) ? SIGNED_IN_REDIRECTS[path] : undefined;
  if (!target) return { kind: 'render' };
  // Avoid flashing the landing page at a returning user while their session is checked.
  if (state.status === 'booting') return state.hasStoredSid ? { kind: 'wait' } : { kind: 'render' };
  if (state.status === 'ready' && state.signedIn) return { kind: 'redirect', to: target };
  return { kind: 'render' };
}

/**
 * /app/* needs a registered account. Anonymous (including a start-up login that failed): back to
 * the root with the sign-in modal open, remembering where the user was going.
 */
export function guardApp(path: string, state: GuardState): GuardDecision {
  if (state.status === 'booting') return { kind: 'wait' };
  if (state.status === 'failed') return { kind: 'redirect', to: '/' };
  if (state.signedIn) return { kind: 'render' };
  return { kind: 'redirect', to: '/', signInTarget: path === '/app' ? DEFAULT_AFTER_SIGN_IN : path };
}

/** Where to go once signed in: the remembered /app target, else the dashboard. */
export function afterSignIn(target: string | undefined): string {
  return target && isAppPath(target) ? target : DEFAULT_AFTER_SIGN_IN;
}
