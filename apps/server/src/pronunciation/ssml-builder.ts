import type { MarkupDocument, MarkupPart } from '@polyvox/speech';
import type { Settings } from './ssml-values.js';

/** What the whole document is building: the written text, its spans back to the request, the parts. */
export class Builder {
  written = '';
  charged = '';
  readonly doc: Omit<MarkupDocument, 'written' | 'characters'> = { spans: [], rules: [], parts: [], marks: [] };
  private partStart = 0;

  /** Characters of the request [from, to) that became `text` of the written text (a tag: nothing). */
  put(from: number, to: number, text: string, charged = text): void {
    const at = this.written.length;
    if (to === from && !text) return;
    // Text as written maps one to one; a tag (to nothing) or an entity (to its character) is a span.
    if (!(to - from === text.length && text.length > 0))
      this.doc.spans.push({ from, to, spokenFrom: at, spokenTo: at + text.length });
    this.written += text;
    this.charged += charged;
  }

  /**
   * Ends the part being written (its settings are those in force while it was) with a pause after it, or at a
   * sentence's or paragraph's end (`</s>`, `</p>`: the speech plan's pause for it, unless a break gives one).
   */
  cut(settings: Settings, pauseMs = 0, boundary?: MarkupPart['boundary']): void {
    if (this.written.length === this.partStart) {
      // Nothing written since the last cut: a pause joins the one before (two breaks in a row add up).
      const last = this.doc.parts.at(-1);
      if (last && boundary && last.boundary !== 'paragraph') last.boundary = boundary;
      if (!pauseMs) return;
      if (last) {
        last.pauseMs = (last.pauseMs ?? 0) + pauseMs;
        return;
      }
    }
    const part: MarkupPart = {
      end: this.written.length,
      ...settings,
      ...(pauseMs ? { pauseMs } : {}),
      ...(boundary ? { boundary } : {}),
    };
    if (part.rate === 1) delete part.rate;
    this.doc.parts.push(part);
    this.partStart = this.written.length;
  }
}
