/** Resend cooldowns of verification codes, kept per email so another address is not blocked. */
export function secondsLeft(endsAt: number | undefined, now: number): number {
  if (endsAt === undefined) return 0;
  return Math.max(0, Math.ceil((endsAt - now) / 1000));
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class CooldownBook {
  private readonly ends = new Map<string, number>();

  start(email: string, seconds: number, now: number): void {
    if (!(seconds > 0)) return;
    this.ends.set(normalizeEmail(email), now + seconds * 1000);
  }

  left(email: string, now: number): number {
    return secondsLeft(this.ends.get(normalizeEmail(email)), now);
  }

  clear(): void {
    this.ends.clear();
  }

  canSend(email: string, now: number): boolean {
    return this.left(email, now) === 0;
  }
}
