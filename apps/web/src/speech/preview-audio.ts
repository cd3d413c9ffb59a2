import { useSyncExternalStore } from 'react';

export type PreviewStatus = 'idle' | 'loading' | 'playing' | 'error';
export interface PreviewState {
  /** The voice whose preview is loaded, if any. */
  id: string | null;
  status: PreviewStatus;
}

/**
 * Voice previews share one audio element, so starting one stops the other; it sits hidden in the
 * page (data-testid="preview-audio") so tests can watch it play.
 */
class PreviewPlayer {
  private state: PreviewState = { id: null, status: 'idle' };
  private readonly listeners = new Set<() => void>();
  private element: HTMLAudioElement | null = null;

  private audio(): HTMLAudioElement {
    if (this.element) return this.element;
    const el = document.createElement('audio');
    el.preload = 'none';
    el.hidden = true;
    el.dataset.testid = 'preview-audio';
    el.addEventListener('playing', () => this.update({ status: 'playing' }));
    el.addEventListener('waiting', () => this.update({ status: 'loading' }));
    el.addEventListener('ended', () => this.update({ status: 'idle' }));
    el.addEventListener('pause', () => {
      if (this.state.status !== 'error') this.update({ status: 'idle' });
    });
    el.addEventListener('error', () => {
      if (el.getAttribute('src')) this.update({ status: 'error' });
    });
    document.body.appendChild(el);
    this.element = el;
    return el;
  }

  private update(patch: Partial<PreviewState>): void {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((l) => l());
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): PreviewState => this.state;

  /** Plays this voice's preview, or stops it if it is the one playing. */
  toggle(id: string, url: string): void {
    const el = this.audio();
    const active = this.state.id === id && (this.state.status === 'playing' || this.state.status === 'loading');
    if (active) {
      el.pause();
      return;
    }
    el.pause();
    if (this.state.id !== id || !el.getAttribute('src')) el.src = url;
    el.currentTime = 0;
    this.update({ id, status: 'loading' });
    el.play().catch((error: unknown) => {
      if (error instanceof DOMException && error.name === 'AbortError') return; // replaced by another preview
      this.update({ status: 'error' });
    });
  }

  stop(): void {
    this.element?.pause();
  }
}

export const previewPlayer = new PreviewPlayer();

export function usePreviewState(): PreviewState {
  return useSyncExternalStore(previewPlayer.subscribe, previewPlayer.getSnapshot);
}
