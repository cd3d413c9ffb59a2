import { LIMITS } from '@polyvox/contracts';

export type AvatarProblem = 'type' | 'size';

/** The client-side check before upload; the server sniffs the bytes again. */
export function checkAvatar(file: { type: string; size: number }): AvatarProblem | null {
  if (!(LIMITS.avatarTypes as readonly string[]).includes(file.type)) return 'type';
  if (file.size > LIMITS.avatarMaxBytes) return 'size';
  return null;
}

export const AVATAR_ACCEPT = LIMITS.avatarTypes.join(',');
