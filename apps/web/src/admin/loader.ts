/**
 * The console's door, the only module the customer's router names: the first script then lists this one small chunk,
 * not every file the console is built from (those are listed here, fetched when #/admin opens).
 */
// The router's own lazy() picks the component: a lazy() here would hand React a lazy object as a lazy's result
// (minified React error #306 in the built console).
export const loadAdmin = () => import('./AdminApp');
