/** The console's economy pages: one chunk for the router (the chart is its own chunk, loaded where it shows). */
export { ApiKeysPage } from './ApiKeysPage';
export { OrderResultPage } from './OrderResultPage';
export { OrdersPage } from './OrdersPage';
export { UsagePage } from './UsagePage';
