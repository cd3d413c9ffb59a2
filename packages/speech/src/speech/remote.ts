/** The remote providers (OpenAI-compatible endpoints, ElevenLabs): their engines from a configuration, and a test call. */
import { ElevenLabsEngine, type ElevenLabsConfig } from '../engines/elevenlabs.ts';
import { OpenAIEngine, type OpenAIConfig } from '../engines/openai.ts';
import { isSpeechError, SpeechError } from '../core/errors.ts';
import type { Engine, EngineRequest } from '../core/types.ts';

/** A provider configured but not reachable at start (or at a change), with why. */
export interface Unavailable {
  provider: string;
  code: string;
  message: string;
}

export interface RemoteOptions {
  openai?: OpenAIConfig;
  elevenlabs?: ElevenLabsConfig;
}

/** The remote engines of a configuration; a provider that is down or refuses the key is left out and reported. */
export async function remoteEngines(config: RemoteOptions, unavailable: Unavailable[]): Promise<Map<string, Engine>> {
  const out = new Map<string, Engine>();
  if (config.openai?.url && config.openai.key) out.set('openai', new OpenAIEngine(config.openai));
  if (config.elevenlabs?.url && config.elevenlabs.key) {
    const el = new ElevenLabsEngine(config.elevenlabs);
    try {
      await el.refreshVoices();
      out.set('elevenlabs', el);
    } catch (e) {
      // A provider that is down or refuses the key must not take the local engines with it.
      unavailable.push({ provider: 'elevenlabs', code: isSpeechError(e) ? e.code : 'INTERNAL', message: (e as Error).message });
    }
  }
  return out;
}

/**
 * One call to a remote provider as configured, without a Speech: OpenAI-compatible endpoints speak a word in their
 * first voice, ElevenLabs lists its voices. Resolves with what was learnt, rejects with the provider's error.
 */
export async function testRemoteProvider(
  kind: 'openai' | 'elevenlabs',
  config: OpenAIConfig | ElevenLabsConfig,
  signal?: AbortSignal,
): Promise<{ voices: number }> {
  if (kind === 'elevenlabs') return { voices: (await new ElevenLabsEngine(config).refreshVoices()).length };
  const engine = new OpenAIEngine(config);
  const voice = engine.listVoices()[0]!;
  const req = {
    text: 'Test.',
    voice,
    profile: voice.profile,
    speed: 1,
    pitch: 0,
    ...(signal ? { signal } : {}),
  } as EngineRequest;
  for await (const chunk of engine.synthesize(req)) if (!chunk.samples.length) throw new SpeechError('INTERNAL', 'no audio');
  return { voices: engine.listVoices().length };
}
