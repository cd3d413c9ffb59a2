import { useCallback, useEffect, useState } from 'react';
import { CooldownBook } from './countdown';

/** One book for the page: closing and reopening the modal must not reset a running countdown. */
const book = new CooldownBook();

/** Sign-out: the next user starts without the previous one's countdown (the server still enforces its own). */
export function clearCooldowns(): void {
  book.clear();
}

export interface Cooldown {
  /** Whole seconds before another code may be requested for this email; 0: now. */
  left: number;
  start: (email: string, seconds: number) => void;
  /** Read at click time, so a click in the last render's window is still refused. */
  blocked: (email: string) => boolean;
}

export function useCooldown(email: string): Cooldown {
  const [now, setNow] = useState(() => Date.now());
  const left = book.left(email, now);
  const running = left > 0;

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [running]);

  const start = useCallback((forEmail: string, seconds: number) => {
    book.start(forEmail, seconds, Date.now());
    setNow(Date.now());
  }, []);

  const blocked = useCallback((forEmail: string) => !book.canSend(forEmail, Date.now()), []);

  return { left, start, blocked };
}
