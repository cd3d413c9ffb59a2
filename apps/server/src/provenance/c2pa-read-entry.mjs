// Entry of the C2PA reading thread: plain JavaScript that registers tsx, as the speech package's thread entries do.
import { register } from 'tsx/esm/api';

register();
await import('./c2pa-read-thread.ts');
