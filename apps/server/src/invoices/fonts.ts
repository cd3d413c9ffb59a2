import fs from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import type { MessageLocale } from '@polyvox/contracts';

/**
 * Fonts with Chinese glyphs for receipts. RECEIPT_FONT names one; else the first of Debian's fonts-noto-cjk files found
 * (the package CI installs for Chromium). None found: receipts fall back to PDF's standard Helvetica in English.
 */
export const CJK_FONT_CANDIDATES = [
  '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/opentype/noto/NotoSansCJKsc-Regular.otf',
  '/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc',
  '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc',
  '/usr/share/fonts/truetype/arphic/uming.ttc',
  '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf',
];

/** The face of a collection to use per language: Simplified or Traditional Chinese forms. */
const FACE_HINTS: Record<MessageLocale, RegExp[]> = {
  'zh-CN': [/CJKsc/i, /SC\b/, /Hans/i],
  'zh-TW': [/CJKtc/i, /TC\b/, /Hant/i],
  en: [/CJKsc/i, /SC\b/],
};

/** A parsed fontkit font, as pdf-lib's `embedFont` takes through a fontkit stand-in. */
export type FontkitFont = { postscriptName: string; createSubset(): unknown };

interface FontkitCollection {
  fonts: FontkitFont[];
}

let patched = false;

/**
 * fontkit 1.1.1 subsets a CID-keyed CFF font (every Noto CJK face) wrongly: it files each glyph's local
 * subroutines under the last font dict it met instead of the glyph's own, so glyphs of an earlier dict lose their
 * subroutines ("Out of bounds subrIndex" in readers, broken outlines). This replaces that one method on the subset
 * class, keyed by the glyph's own font dict.
 */
function patchCffSubset(font: FontkitFont): void {
  if (patched) return;
  const proto = Object.getPrototypeOf(font.createSubset()) as Record<string, unknown>;
  if (typeof proto.subsetFontdict !== 'function') return;
  patched = true;
  proto.subsetFontdict = function (this: CffSubset, topDict: CffTopDict) {
    topDict.FDArray = [];
    topDict.FDSelect = { version: 0, fds: [] };
    const index = new Map<number, number>();
    const used: Record<number, boolean>[] = [];
    for (const gid of this.glyphs) {
      const fd = this.cff.fdForGlyph(gid);
      if (fd == null) continue;
      let i = index.get(fd);
      if (i === undefined) {
        i = topDict.FDArray.length;
        index.set(fd, i);
        topDict.FDArray.push({ ...this.cff.topDict.FDArray[fd] });
        used.push({});
      }
      topDict.FDSelect.fds.push(i);
      const glyph = this.font.getGlyph(gid);
      void glyph.path; // parsing the outline notes the subroutines it calls
      for (const subr of Object.keys(glyph._usedSubrs)) used[i]![Number(subr)] = true;
    }
    topDict.FDArray.forEach((dict, i) => {
      delete dict.FontName;
      const subrs = dict.Private?.Subrs;
      if (dict.Private && subrs) dict.Private = { ...dict.Private, Subrs: this.subsetSubrs(subrs, used[i]!) };
    });
  };
}

interface CffFontDict {
  FontName?: unknown;
  Private?: { Subrs?: unknown[] } & Record<string, unknown>;
}
interface CffTopDict {
  FDArray: CffFontDict[];
  FDSelect: { version: number; fds: number[] };
}
interface CffSubset {
  glyphs: number[];
  cff: { fdForGlyph(gid: number): number | null; topDict: { FDArray: CffFontDict[] } };
  font: { getGlyph(gid: number): { path: unknown; _usedSubrs: Record<string, boolean> } };
  subsetSubrs(subrs: unknown[], used: Record<number, boolean>): unknown[];
}

export interface ReceiptFonts {
  /** The face for `locale`, or null when no font with Chinese glyphs is installed. */
  face(locale: MessageLocale): FontkitFont | null;
  /** Where the font was read from, for the log; null without one. */
  source: string | null;
}

/** Reads the first font found (once: the file is opened lazily on the first receipt, then kept). */
export function receiptFonts(configured: string): ReceiptFonts {
  const candidates = configured ? [configured] : CJK_FONT_CANDIDATES;
  const source = candidates.find((file) => fs.existsSync(file)) ?? null;
  let faces: FontkitFont[] | null = null;
  const cache = new Map<MessageLocale, FontkitFont | null>();
  function load(): FontkitFont[] {
    if (faces) return faces;
    faces = [];
    if (!source) return faces;
    try {
      const parsed = (fontkit as unknown as { create(buffer: Buffer): FontkitFont | FontkitCollection }).create(
        fs.readFileSync(source),
      );
      faces = 'fonts' in parsed ? parsed.fonts : [parsed];
    } catch {
      faces = [];
    }
    return faces;
  }
  return {
    source,
    face(locale) {
      if (cache.has(locale)) return cache.get(locale)!;
      const all = load();
      const hinted = FACE_HINTS[locale].map((re) => all.find((f) => re.test(f.postscriptName))).find(Boolean);
      // Monospaced faces of a collection come last: the first proportional face otherwise.
      const face = hinted ?? all.find((f) => !/mono/i.test(f.postscriptName)) ?? all[0] ?? null;
      if (face) patchCffSubset(face);
      cache.set(locale, face);
      return face;
    },
  };
}
