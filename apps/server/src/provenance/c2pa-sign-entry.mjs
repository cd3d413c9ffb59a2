// Entry of the C2PA signing thread: plain JavaScript that registers tsx, as the speech package's thread entries do.
import { register } from 'tsx/esm/api';

register();
await import('./c2pa-sign-thread.ts');
