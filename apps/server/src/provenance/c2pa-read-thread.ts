/** The C2PA reading thread: validates a file's manifest (hashing up to 20 MB) off the server's event loop. */
import { serveTasks } from '@polyvox/speech';
import { readC2pa, type C2paReadTask, type C2paReport } from './c2pa-read.ts';

serveTasks((m: C2paReadTask): Promise<C2paReport> => readC2pa(m.file, m.mimeType, m.opts));
