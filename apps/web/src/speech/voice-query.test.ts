import { describe, expect, it } from 'vitest';
import { filtersFromSearch, filtersToSearch, pageCount, playgroundPath, voiceListQuery, voicesPath } from './voice-query';

describe('voiceListQuery', () => {
  it('asks for the official library, 20 a page, with only the filters that are set', () => {
    expect(voiceListQuery({}, 1)).toEqual({
      source: 'official',
      page: 1,
      page_size: 20,
      model: undefined,
      languages: undefined,
      gender: undefined,
      name: undefined,
    });
    expect(voiceListQuery({ model: 'flite', language: 'en-US', gender: 'female', name: '  Sarah ' }, 3, 10)).toEqual({
      source: 'official',
      page: 3,
      page_size: 10,
      model: 'flite',
      languages: 'en-US',
      gender: 'female',
      name: 'Sarah',
    });
  });

  it('drops blank values and clamps a bad page', () => {
    expect(voiceListQuery({ model: ' ', name: '' }, 0)).toMatchObject({ page: 1, model: undefined, name: undefined });
    expect(voiceListQuery({}, Number.NaN).page).toBe(1);
  });
});

describe('filters in the URL', () => {
  it('round-trips filters and page', () => {
    const search = filtersToSearch({ model: 'espeak-ng', language: 'fr', gender: 'male', name: 'Jean' }, 2);
    expect(search.toString()).toBe('model=espeak-ng&language=fr&gender=male&name=Jean&page=2');
    expect(filtersFromSearch(search)).toEqual({
      filters: { model: 'espeak-ng', language: 'fr', gender: 'male', name: 'Jean' },
      page: 2,
    });
  });

  it('ignores an unknown gender and a bad page', () => {
    expect(filtersFromSearch(new URLSearchParams('gender=robot&page=-3&name=%20'))).toEqual({ filters: {}, page: 1 });
  });

  it('omits page 1 and empty filters', () => {
    expect(filtersToSearch({ model: '' }, 1).toString()).toBe('');
  });

  it('builds the links between pages', () => {
    expect(voicesPath({ model: 'flite' })).toBe('/app/voices?model=flite');
    expect(voicesPath({})).toBe('/app/voices');
    expect(playgroundPath('voice_espeak.en-us~m3')).toBe('/app/playground?voice=voice_espeak.en-us%7Em3');
  });
});

it('counts pages, at least one', () => {
  expect(pageCount(0, 20)).toBe(1);
  expect(pageCount(20, 20)).toBe(1);
  expect(pageCount(21, 20)).toBe(2);
  expect(pageCount(778, 20)).toBe(39);
});

describe('the neural filter', () => {
  it('asks GET /voice for neural voices only when it is on', () => {
    expect(voiceListQuery({ neural: true }, 1).neural).toBe('true');
    expect(voiceListQuery({ neural: false }, 1)).not.toHaveProperty('neural');
    expect(voiceListQuery({}, 1)).not.toHaveProperty('neural');
  });

  it('keeps it in the page address, and reads it back', () => {
    const search = filtersToSearch({ neural: true, language: 'en' });
    expect(search.toString()).toBe('language=en&neural=1');
    expect(filtersFromSearch(search).filters).toEqual({ language: 'en', neural: true });
    expect(filtersFromSearch(new URLSearchParams('neural=0')).filters).toEqual({});
  });
});
