import { afterAll, beforeAll } from 'vitest';
import { createSpeech, type Speech } from '../../src/index.ts';

/**
 * A Speech for the tests that only make plans (eSpeak NG then speaks them on the test's own thread): no worker warms
 * up. Made before the suite's tests and closed after them; the returned function gives it.
 */
export function planningSpeech(): () => Speech {
  let speech: Speech | undefined;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
  }, 120_000);
  afterAll(async () => {
    await speech?.close();
  });
  return () => speech!;
}
