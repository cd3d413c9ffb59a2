/// <reference types="vite/client" />

/** Injected by vite.config.ts from package.json. */
declare const __POLYVOX_CLIENT_VERSION__: string;
