/**
 * Phoneme rules on Flite and GnuSpeech: IPA and ARPAbet in their phone sets (the tables), each engine speaking the
 * phones it was given (read back from its own phone output), and a rule's word timed where the request had it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FliteEngine, withAddenda } from '../src/engines/flite.ts';
import { GnuSpeechEngine, userDictionary } from '../src/engines/gnuspeech.ts';
import { createSpeech, type Speech } from '../src/speech.ts';
import { ipaToArpabet, parseArpabet, toEnginePhonemes, toFlitePhones, toGnuspeechPhones } from '../src/text/engine-phones.ts';

describe('the tables', () => {
  it('read IPA as ARPAbet, stress on the vowel after its mark', () => {
    const arpa = (ipa: string) =>
      ipaToArpabet(ipa)
        ?.map((p) => p.phone + (p.stress ?? ''))
        .join(' ');
    expect(arpa('təˈmɑːtoʊ')).toBe('T AX0 M AA1 T OW0');
    expect(arpa('ˌkuːbərˈneɪtiːz')).toBe('K UW2 B AX0 R N EY1 T IY0 Z');
    expect(arpa('/ˈθɪŋk/')).toBe('TH IH1 NG K');
    expect(arpa('t͡ʃɜrtʃ')).toBe('CH ER1 R CH');
    // No stress mark: the first full vowel takes it.
    expect(arpa('wɪn')).toBe('W IH1 N');
    // A sound English has not, or no vowel at all: not guessed at.
    expect(ipaToArpabet('bax')).toBeNull();
    expect(ipaToArpabet('☃')).toBeNull();
    expect(ipaToArpabet('st')).toBeNull();
    expect(parseArpabet('T AH0 M EY1 T OW2')?.map((p) => p.stress)).toEqual([null, 0, null, 1, null, 2]);
    expect(parseArpabet('XX1')).toBeNull();
    expect(parseArpabet('T1 AH')).toBeNull();
  });

  it('write Flite’s lexicon phones: lower case, vowels stressed 1 or 0, the phones its lexicon lacks replaced', () => {
    expect(toFlitePhones('təˈmɑːtoʊ', 'ipa')).toBe('t ah0 m aa1 t ow0');
    expect(toFlitePhones('T AH0 M EY1 T OW2', 'cmu-arpabet')).toBe('t ah0 m ey1 t ow1');
    expect(toFlitePhones('B AA1 T EL', 'cmu-arpabet')).toBe('b aa1 t ah0 l');
    expect(toFlitePhones('ˈbʌɾɚ', 'ipa')).toBe('b ah1 t er0');
    expect(toFlitePhones('ʔə', 'ipa')).toBe('ah1');
    expect(toEnginePhonemes('flite', 'HH AH0 L OW1', 'cmu-arpabet')).toBe('hh_ah0_l_ow1');
    expect(toFlitePhones('x', 'klingon')).toBeNull();
  });

  it('write GnuSpeech’s dictionary phones: syllables by English onsets, stress marks before them', () => {
    expect(toGnuspeechPhones('təˈmɑːtoʊ', 'ipa')).toBe("t_uh.'m_ar.t_uh_uu");
    expect(toGnuspeechPhones('HH AH0 L OW1', 'cmu-arpabet')).toBe("h_uh.'l_uh_uu");
    expect(toGnuspeechPhones('K AA2 R K UH1', 'cmu-arpabet')).toBe('"k_ar_r.\'k_u');
    expect(toGnuspeechPhones('ˈmɪstri', 'ipa')).toBe("'m_i.s_t_r_i");
    expect(toGnuspeechPhones('ˈhæpi', 'ipa')).toBe("'h_aa.p_i");
    expect(toGnuspeechPhones('B ER1 D', 'cmu-arpabet')).toBe("'b_er_r_d");
    expect(toGnuspeechPhones('ç', 'ipa')).toBeNull();
  });
});

describe('the engines speak the phones given', () => {
  const flite = new FliteEngine();
  const gnu = new GnuSpeechEngine();
  afterAll(() => flite.close());

  it('Flite: a rule’s phones become a word of its lexicon; anything else between brackets stays text', async () => {
    const said = await flite.phonesOf(`Say [[${toEnginePhonemes('flite', 'ˈsɝʃə', 'ipa')}]] twice.`, 'kal');
    // (The 8 kHz Kal voice says its unstressed ah as aa.)
    expect(said.join(' ')).toMatch(/^s ey s er sh (ah|ax|aa) t w ay s$/);
    // Two rules, one phone string: one word made; a phone Flite has not (its `x`) is not written to the addenda.
    expect(withAddenda('[[w_ih1_n]] [[w_ih1_n]] [[b_aa1_x]]')).toMatchObject({
      text: 'polyvoxa polyvoxa [[b_aa1_x]]',
      lex: 'polyvoxa : w ih1 n\n',
    });
    // Its segments stay clean: nothing of the addenda is printed among them.
    const plain = await flite.phonesOf('[[b_aa1_x]]', 'kal');
    expect(plain.every((p) => /^[a-z]+$/.test(p))).toBe(true);
    // A call's addenda are its own (each run a fresh instance in a folder of its own): the next call spells the word.
    expect((await flite.phonesOf('polyvoxa', 'kal')).join(' ')).not.toMatch(/s er sh/);
  });

  it('GnuSpeech: a rule’s phones become a word of its user dictionary', async () => {
    const said = await gnu.phonesOf(`Say [[${toEnginePhonemes('gnuspeech', 'ˈsɝʃə', 'ipa')}]] twice.`, 'male');
    // "say" (s e i), the rule's s er r sh uh, then "twice".
    expect(said.join(' ')).toMatch(/^s e i s er r sh uh t w/);
    expect(userDictionary("[['w_i_n]] [[b_aa_x9]]")).toEqual({
      text: 'polyvoxa [[b_aa_x9]]',
      dictionary: "polyvox user dictionary\npolyvoxa 'w_i_n%a\n",
    });
    expect(userDictionary('no rules here').dictionary).toBe('');
    // A made word the text holds itself is never used: it would be read with the rule's phones.
    expect(userDictionary("Polyvoxa said [['w_i_n]]").text).toBe('Polyvoxa said polyvoxb');
    expect(withAddenda('polyvoxa [[w_ih1_n]]').text).toBe('polyvoxa polyvoxb');
  });
});

describe('phoneme rules through the pipeline', () => {
  let speech: Speech;
  beforeAll(async () => {
    speech = await createSpeech({ poolSize: 1, warmup: false, cache: false });
  });
  afterAll(() => speech?.close());

  const rules = [
    { type: 'phoneme' as const, string_to_replace: 'Nguyen', phoneme: 'wɪn', alphabet: 'ipa' },
    { type: 'phoneme' as const, string_to_replace: 'Bach', phoneme: 'bɑx', alphabet: 'ipa' },
  ];

  for (const voiceId of ['flite:slt', 'gnuspeech:female'])
    it(`${voiceId}: spoken as the rule says, a sound it lacks falls back, the word timed where the request has it`, async () => {
      const text = 'Ask Nguyen about Bach today.';
      const plan = speech.prepare({ text, voiceId, format: 'wav', lexicon: rules });
      expect(plan.pronunciationFallbacks).toEqual(['Bach']);
      expect(plan.text).toMatch(/^Ask \[\[[^\]]+\]\] about Bach today\.$/);
      const r = await speech.synthesize({ text, voiceId, format: 'wav', timings: true, lexicon: rules });
      const words = r.timings!.words.map((w) => w.word);
      expect(words).toEqual(['Ask', 'Nguyen', 'about', 'Bach', 'today']);
      const nguyen = r.timings!.words[1]!;
      expect(nguyen.end - nguyen.start).toBeGreaterThan(0.1);
      expect(nguyen.start).toBeGreaterThanOrEqual(r.timings!.words[0]!.end - 1e-6);
      // The same request priced by its words, not its phones.
      expect(r.characters).toBe(speech.prepare({ text, voiceId, format: 'wav' }).characters);
    });
});
