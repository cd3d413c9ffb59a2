import { expect, it } from 'vitest';
import { AUDIO_FORMATS, GENDERS } from '@polyvox/contracts';
import { FORMAT_VALUES, GENDER_VALUES } from './types';

it("repeats the contract's genders and formats exactly", () => {
  expect([...GENDER_VALUES]).toEqual([...GENDERS]);
  expect([...FORMAT_VALUES]).toEqual([...AUDIO_FORMATS]);
});
