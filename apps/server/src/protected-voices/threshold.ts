/**
 * The voiceprint distance (`voiceprintDistance`) at or under which a clone sample is the voice of a protected one.
 * Set from the false accepts and false rejects measured by `npx tsx bench/run.ts --only voiceprint` (bench/history.md).
 */
export const PROTECTED_VOICE_THRESHOLD = 3;
