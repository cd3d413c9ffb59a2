import { createSpeech, type RemoteOptions, type Speech, type SpeechOptions } from '@polyvox/speech';

/**
 * Owns the speech engines and their worker pool. They start on first use (or at `warmup()`), so a
 * process that never synthesizes never pays for them. Closing during the start stops the start (its
 * warmup can take tens of seconds on a busy machine) instead of waiting for it.
 */
export class SpeechHost {
  private instance: Promise<Speech> | null = null;
  private starting: AbortController | null = null;
  private up = false;

  private options: SpeechOptions;

  constructor(options: SpeechOptions) {
    this.options = options;
  }

  /**
   * Replaces the remote providers (an operator's change, read from the database): engines not started yet start
   * with them, started ones switch at once. Answers the providers that could not be reached (none when not started).
   */
  async setRemote(remote: RemoteOptions): Promise<{ provider: string; code: string; message: string }[]> {
    this.options = { ...this.options, remote };
    const instance = this.instance;
    if (!instance) return [];
    let speech: Speech;
    try {
      speech = await instance;
    } catch {
      return [];
    }
    return (await speech.setRemote(remote)).unavailable;
  }

  get(): Promise<Speech> {
    if (!this.instance) {
      const starting = new AbortController();
      this.starting = starting;
      const instance = createSpeech({ ...this.options, signal: starting.signal });
      this.instance = instance;
      instance.then(
        () => {
          this.up = this.instance === instance;
          if (this.starting === starting) this.starting = null;
        },
        () => {
          if (this.instance === instance) this.instance = null;
          if (this.starting === starting) this.starting = null;
        },
      );
    }
    return this.instance;
  }

  /**
   * Whether the engines are up (with `warmup`, warmed: each pool thread and the encoder thread have run, and the paths
   * a first stream and a first one-sentence file take have been run once), starting them if they are not. `/readyz`.
   */
  ready(): boolean {
    if (!this.up) void this.get().catch(() => {});
    return this.up;
  }

  get started(): boolean {
    return this.instance !== null;
  }

  async close(): Promise<void> {
    const instance = this.instance;
    this.instance = null;
    this.up = false;
    this.starting?.abort(new Error('the speech engines are closing'));
    this.starting = null;
    if (!instance) return;
    let speech: Speech;
    try {
      speech = await instance;
    } catch {
      // A start that was stopped (or failed) has already ended what it started.
      return;
    }
    await speech.close();
  }
}
