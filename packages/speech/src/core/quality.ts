/**
 * How good each kind of voice sounds, best highest: every engine declares its rank in its capabilities,
 * and a sherpa-onnx model may declare its own (manifest.json `quality`). The library lists voices best
 * first, so a language's default voice, OpenAI's voice names and the console's first voice are the best
 * installed. Measured word error rates under an independent recogniser: Flite slt 0.34, eSpeak NG
 * en-us 0.90, GnuSpeech 0.99; neural voices are better than all three.
 */
export const QUALITY = {
  /** sherpa-onnx models (VITS/Piper, Kokoro, Kitten, Matcha, ZipVoice) and the remote neural services. */
  neural: 30,
  /** Flite's clustergen and diphone voices. */
  flite: 20,
  /** eSpeak NG's formant voices. */
  espeak: 10,
  /** GnuSpeech's articulatory voice. */
  gnuspeech: 0,
} as const;

/** Whether a rank is a neural voice's. */
export const isNeural = (quality: number | undefined): boolean => (quality ?? 0) >= QUALITY.neural;
