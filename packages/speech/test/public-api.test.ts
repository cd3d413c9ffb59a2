import { describe, expect, it } from 'vitest';
import * as speech from '../src/index.ts';
import * as measure from '../src/measure.ts';

describe('the public entry', () => {
  it('exports the facade, errors, the cache, analysis and design, model discovery and quality ranks, the task thread, the voiceprint, and no internals', () => {
    expect(Object.keys(speech).sort()).toEqual(
      [
        'AI_LABEL_KINDS',
        'AI_LABEL_POSITIONS',
        'AUDIO_FORMATS',
        'BITRATES',
        'CONTENT_TYPES',
        'DEFAULT_VOICE_SETTINGS',
        'FFMPEG',
        'LINE_CHARS',
        'SUBTITLE_FORMATS',
        'TEXT_NORMALIZATIONS',
        'SAY_AS_KINDS',
        'SILENT_DB',
        'spokenText',
        'MemoryAudioCache',
        'PAUSE_MS',
        'SPEECH_ERROR_CODES',
        'SpeechError',
        'TaskThread',
        'serveTasks',
        'analyzeSample',
        'checkLanguage',
        'cloneProfile',
        'countCharacters',
        'createSpeech',
        'decodeAudio',
        'decodeToPcm',
        'cues',
        // Studio's export: subtitle cues formatted as SRT or VTT, and ffmpeg's child at a lower priority.
        'formatCues',
        'lowerPriority',
        'instructedProfile',
        'isSpeechError',
        'measurePcm',
        'probeSample',
        'promptVoice',
        'readPrompt',
        'referenceFromSample',
        'scanModelsDir',
        'discoverModels',
        'MODEL_RECORD_FILE',
        'readModelRecord',
        'QUALITY',
        'isNeural',
        'semitonesBetween',
        'settingsProfile',
        'strongerLabel',
        'subtitles',
        'testRemoteProvider',
        'VOICEPRINT_RATE',
        'voiceprint',
        'voiceprintDistance',
        'voiceprintOfFile',
        'xsampaToIpa',
        'SPEECH_LUFS',
        'pcmLoudness',
        'matchLoudness',
      ].sort(),
    );
    for (const internal of ['WorkerPool', 'SherpaEngine', 'encodeAudio', 'resample', 'cacheKey', 'normalizeText']) {
      expect(speech, internal).not.toHaveProperty(internal);
    }
  });

  it('gives the benchmarks (and nothing else: dependency-cruiser) the parts they time alone, through /measure', () => {
    expect(Object.keys(measure).sort()).toEqual(
      [
        'createLocalEngines',
        'FliteEngine',
        'GnuSpeechEngine',
        'SherpaEngine',
        'espeakSynthesize',
        'alignByReference',
        'trimWordSilences',
        'encodeAudio',
        'runFfmpeg',
        'stoi',
        'nullModel',
      ].sort(),
    );
  });
});
