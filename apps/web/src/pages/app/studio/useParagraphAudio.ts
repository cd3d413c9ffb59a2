import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { notifyError } from '../../../lib/notify';
import { convertParagraph, paragraphAudio, type Paragraph } from '../../../studio/api';
import { isMissingRoute } from '../../../studio/missing';
import { ME_KEY } from '../../../auth/session-controller';
import { STUDIO_KEY } from './queries';

export interface Playing {
  paragraphId: string;
  /** The paragraph's place in its chapter, from 1 (what the player's line names). */
  n: number;
  speaker: string;
  blob: Blob;
}

/**
 * One paragraph's audio at a time: its converted audio (`GET …/audio`), or made now (`POST …/convert`) when it has
 * none or is regenerated. Until the conversion branch's routes answer, `available` turns false at the first 404.
 */
export function useParagraphAudio(projectId: string) {
  const client = useQueryClient();
  const [playing, setPlaying] = useState<Playing | null>(null);
  const [loadingId, setLoadingId] = useState<string | null>(null);
  const [available, setAvailable] = useState(true);

  const play = async (p: Paragraph, n: number, regenerate: boolean) => {
    setLoadingId(p.block_id);
    try {
      const made = regenerate || !p.converted;
      const blob = made ? await convertParagraph(projectId, p.block_id) : await paragraphAudio(projectId, p.block_id);
      setPlaying({ paragraphId: p.block_id, n, speaker: p.speaker, blob });
      // A paragraph made now is converted: its mark, the chapter's progress and the price change.
      if (made) {
        void client.invalidateQueries({ queryKey: ME_KEY });
        await client.invalidateQueries({ queryKey: [STUDIO_KEY] });
      }
    } catch (e) {
      if (isMissingRoute(e)) setAvailable(false);
      else {
        notifyError(e);
        // A failure is kept on the paragraph (its error and retry shown): the chapter and project are read again.
        void client.invalidateQueries({ queryKey: [STUDIO_KEY] });
      }
    } finally {
      setLoadingId(null);
    }
  };
  return { playing, loadingId, available, play };
}
