import { lazy } from 'react';

const Console = lazy(async () => ({ default: (await import('./AdminApp')).AdminApp }));

/**
 * The console's door, the only module the customer's router names: the first script then lists this one small chunk,
 * not every file the console is built from (those are listed here, fetched when #/admin opens). A component, not the
 * lazy object itself: React refuses a lazy component that resolves to another lazy one.
 */
export function AdminApp() {
  return <Console />;
}
