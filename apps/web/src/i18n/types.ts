import type { designEn } from './design-en';
import type { en } from './en';
import type { economyEn } from './economy-en';
import type { provenanceEn } from './provenance-en';
import type { pronunciationEn } from './pronunciation-en';
import type { speechEn } from './speech-en';
import type { reportEn } from './report-en';
import type { studioEn } from './studio-en';
import type { historyEn } from './history-en';

/** The shape of `en` with every leaf widened to `string`: each translation must match it key for key. */
type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type Messages = Widen<typeof en>;

/** The synthesis screens' part of `Messages`, translated in ./speech-zh-CN.ts and ./speech-zh-TW.ts. */
export type SpeechMessages = Widen<typeof speechEn>;

/** The economy screens' part of `Messages`, translated in ./economy-zh-CN.ts and ./economy-zh-TW.ts. */
export type EconomyMessages = Widen<typeof economyEn>;
/** The voice-design screens' part of `Messages`, translated in ./design-zh-CN.ts and ./design-zh-TW.ts. */
export type DesignMessages = Widen<typeof designEn>;
/** The provenance check's part of `Messages`, translated in ./provenance-zh-CN.ts and ./provenance-zh-TW.ts. */
export type ProvenanceMessages = Widen<typeof provenanceEn>;
/** The Pronunciation page's part of `Messages`, translated in ./pronunciation-zh-CN.ts and ./pronunciation-zh-TW.ts. */
export type PronunciationMessages = Widen<typeof pronunciationEn>;
/** The "Report misuse" page's part of `Messages`, translated in ./report-zh-CN.ts and ./report-zh-TW.ts. */
export type ReportMessages = Widen<typeof reportEn>;
/** The Studio and Dialogue pages' part of `Messages`, translated in ./studio-zh-CN.ts and ./studio-zh-TW.ts. */
export type StudioMessages = Widen<typeof studioEn>;
/** The History page's part of `Messages`, translated in ./history-zh-CN.ts and ./history-zh-TW.ts. */
export type HistoryMessages = Widen<typeof historyEn>;
