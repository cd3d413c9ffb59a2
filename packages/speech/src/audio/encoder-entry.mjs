// Entry of the encoder thread: plain JavaScript that registers tsx, as pool/worker-entry.mjs does.
import { register } from 'tsx/esm/api';

register();
await import('./encoder-thread.ts');
