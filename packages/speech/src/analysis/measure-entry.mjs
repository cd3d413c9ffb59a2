// Entry of the analysis thread: plain JavaScript that registers tsx, as pool/worker-entry.mjs does.
import { register } from 'tsx/esm/api';

register();
await import('./measure-thread.ts');
