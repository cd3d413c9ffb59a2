/**
 * Where a sign-in that just succeeded is heading. The sign-in flow navigates there; meanwhile the
 * public guard, which now sees a signed-in user on home, redirects to the same place instead of
 * racing it to the dashboard. The console guard clears it on arrival.
 */
let pending: string | null = null;

export const signInHandoff = {
  get: (): string | null => pending,
  set: (to: string): void => {
    pending = to;
  },
  clear: (): void => {
    pending = null;
  },
};
