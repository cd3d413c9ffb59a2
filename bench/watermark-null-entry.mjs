// Entry of the watermark bench's false-positive thread: plain JavaScript that registers tsx.
import { register } from 'tsx/esm/api';

register();
await import('./watermark-null.ts');
