import { lazy } from 'react';

/**
 * The console's door, the only module the customer's router names: the first script then lists this one small chunk,
 * not every file the console is built from (those are listed here, fetched when #/admin opens).
 */
export const AdminApp = lazy(async () => ({ default: (await import('./AdminApp')).AdminApp }));
