import { createSpeech, type Speech, type SpeechOptions } from '@polyvox/speech';

/**
 * Owns the speech engines and their worker pool. They start on first use (or at `warmup()`), so a
 * process that never synthesizes never pays for them.
 */
export class SpeechHost {
  private instance: Promise<Speech> | null = null;

  constructor(private readonly options: SpeechOptions) {}

  get(): Promise<Speech> {
    if (!this.instance) {
      this.instance = createSpeech(this.options);
      this.instance.catch(() => {
        this.instance = null;
      });
    }
    return this.instance;
  }

  get started(): boolean {
    return this.instance !== null;
  }

  async close(): Promise<void> {
    const instance = this.instance;
    this.instance = null;
    if (instance) await (await instance).close();
  }
}
