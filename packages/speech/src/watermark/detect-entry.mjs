// Entry of the watermark detection thread: plain JavaScript that registers tsx, as pool/worker-entry.mjs does.
import { register } from 'tsx/esm/api';

register();
await import('./detect-thread.ts');
