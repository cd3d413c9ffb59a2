export interface SnapshotManifest {
  project: {
    id: string;
    name: string;
    title: string | null;
    author: string | null;
    language: string | null;
    cover_key: string | null;
    cover_type: string | null;
  };
  chapters: {
    id: string;
    title: string;
    paragraphs: {
      id: string;
      text: string;
      speaker: string;
      voice_id: string;
      audio_key: string;
      audio_ms: number;
      sample_rate: number;
      pause_after_ms: number;
      words: { text: string; start: number; end: number }[];
    }[];
  }[];
}
