import { describe, expect, it } from 'vitest';
import { afterSignIn, guardApp, guardPublic, isAppPath, type GuardState } from './guards';

const state = (over: Partial<GuardState> = {}): GuardState => ({
  status: 'ready',
  signedIn: false,
  hasStoredSid: false,
  ...over,
});

describe('guardPublic', () => {
  it('sends a signed-in user from home to the dashboard and from /pricing to /app/pricing', () => {
    expect(guardPublic('/', state({ signedIn: true }))).toEqual({ kind: 'redirect', to: '/app/dashboard' });
    expect(guardPublic('/pricing', state({ signedIn: true }))).toEqual({ kind: 'redirect', to: '/app/pricing' });
  });

  it('the audio check is open to everyone: a visitor stays on /check, a signed-in user sees the console’s', () => {
    expect(guardPublic('/check', state())).toEqual({ kind: 'render' });
    expect(guardPublic('/check', state({ status: 'failed' }))).toEqual({ kind: 'render' });
    expect(guardPublic('/check', state({ signedIn: true }))).toEqual({ kind: 'redirect', to: '/app/check' });
    // Not a path the table knows, though its prototype has the name.
    expect(guardPublic('constructor', state({ signedIn: true }))).toEqual({ kind: 'render' });
  });

  it('shows the public page to anonymous users and on other paths', () => {
    expect(guardPublic('/', state())).toEqual({ kind: 'render' });
    expect(guardPublic('/pricing', state())).toEqual({ kind: 'render' });
    expect(guardPublic('/terms', state({ signedIn: true }))).toEqual({ kind: 'render' });
  });

  it('waits during start-up only when a stored session may turn out signed in', () => {
    expect(guardPublic('/', state({ status: 'booting', hasStoredSid: true }))).toEqual({ kind: 'wait' });
    expect(guardPublic('/', state({ status: 'booting', hasStoredSid: false }))).toEqual({ kind: 'render' });
    expect(guardPublic('/', state({ status: 'failed', hasStoredSid: true }))).toEqual({ kind: 'render' });
  });
});

describe('guardApp', () => {
  it('renders for a signed-in user', () => {
    expect(guardApp('/app/usage', state({ signedIn: true }))).toEqual({ kind: 'render' });
  });

  it('sends anonymous users to the root with the sign-in modal, remembering the target', () => {
    expect(guardApp('/app/my-profile', state())).toEqual({ kind: 'redirect', to: '/', signInTarget: '/app/my-profile' });
    expect(guardApp('/app', state())).toEqual({ kind: 'redirect', to: '/', signInTarget: '/app/dashboard' });
    expect(guardApp('/app/usage?page=2', state())).toMatchObject({ signInTarget: '/app/usage?page=2' });
  });

  it('waits during start-up and goes to the root when start-up failed', () => {
    expect(guardApp('/app/dashboard', state({ status: 'booting', hasStoredSid: true }))).toEqual({ kind: 'wait' });
    expect(guardApp('/app/dashboard', state({ status: 'failed' }))).toEqual({ kind: 'redirect', to: '/' });
  });
});

describe('afterSignIn', () => {
  it('goes to the remembered console page, else the dashboard', () => {
    expect(afterSignIn('/app/api-keys')).toBe('/app/api-keys');
    expect(afterSignIn(undefined)).toBe('/app/dashboard');
    expect(afterSignIn('/terms')).toBe('/app/dashboard');
    expect(afterSignIn('https://evil.example/app/x')).toBe('/app/dashboard');
  });

  it('knows console paths', () => {
    expect(isAppPath('/app')).toBe(true);
    expect(isAppPath('/app/x')).toBe(true);
    expect(isAppPath('/apple')).toBe(false);
    expect(isAppPath('/admin/audit?action=operator.add')).toBe(true);
    expect(isAppPath('/administrator')).toBe(false);
  });
});
