import { describe, expect, it } from 'vitest';
import { dialogueInputs, distinctVoices, moveTurn, newTurn, nextVoice, voiceFits } from './turns';

describe('dialogue turns', () => {
  it('sends only the turns with a voice and some text, as {text, voice_id}', () => {
    const turns = [newTurn('voice_a', 'Hello'), newTurn('voice_b', '   '), newTurn('', 'No voice'), newTurn('voice_b', 'Hi')];
    expect(dialogueInputs(turns)).toEqual([
      { text: 'Hello', voice_id: 'voice_a' },
      { text: 'Hi', voice_id: 'voice_b' },
    ]);
  });

  it('refuses an eleventh distinct voice, and allows a voice already in the dialogue', () => {
    const turns = Array.from({ length: 10 }, (_, i) => newTurn(`voice_${i}`, 'x'));
    expect(distinctVoices(turns)).toBe(10);
    expect(voiceFits([...turns, newTurn('voice_0')], 10, 'voice_new')).toBe(false);
    expect(voiceFits([...turns, newTurn('voice_0')], 10, 'voice_3')).toBe(true);
    // Replacing the only turn of a voice keeps the count.
    expect(voiceFits(turns, 0, 'voice_new')).toBe(true);
  });

  it('gives a new turn the voice two turns back, so a conversation alternates', () => {
    expect(nextVoice([newTurn('voice_a'), newTurn('voice_b')])).toBe('voice_a');
    expect(nextVoice([newTurn('voice_a')])).toBe('voice_a');
    expect(nextVoice([])).toBe('');
  });

  it('moves a turn up and down, and leaves the order alone past either end', () => {
    expect(moveTurn(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveTurn(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveTurn(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveTurn(['a', 'b', 'c'], 2, 3)).toEqual(['a', 'b', 'c']);
  });

  it('keys every turn apart', () => {
    expect(newTurn('voice_a').key).not.toBe(newTurn('voice_a').key);
  });
});
