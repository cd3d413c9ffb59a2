// Types of scripts/build-docs.mjs for the TypeScript that imports it (tests).
export declare const root: string;
/** The guides the site takes from docs/<name>.md (English) and docs/<name>.zh.md (Chinese) at build time. */
export declare const FROM_DOCS: readonly { source: string; page: string }[];
export declare function sourceOf(source: string, lang: string): string;
export declare function relink(markdown: string, lang: string): string;
export declare function mdxSafe(markdown: string): string;
