// Entry of a pool worker thread. Node 20 does not apply loader hooks from a worker's --import
// to its entry module, so the entry is plain JavaScript that registers tsx and then loads the
// TypeScript worker; this works the same under tsx, vitest and plain node.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
