// Types of scripts/build-server.mjs for the TypeScript that imports it (tests, bench).
export declare const root: string;
export declare const defaultOutdir: string;
export declare function runtimeEntries(): Map<string, string>;
export declare function buildServer(opts?: {
  outdir?: string;
  quiet?: boolean;
}): Promise<{ outdir: string; ms: number; entries: string[]; inputs: string[] }>;
export declare function serverBuildIsCurrent(outdir?: string): boolean;
