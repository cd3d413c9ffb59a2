export * from './errors.js';
export * from './locales.js';
export * from './limits.js';
export * from './accounts.js';
export * from './speech.js';
export * from './language-names.js';
export * from './design.js';
