import fs from 'node:fs';
import { z } from 'zod';

const CreditsConfigSchema = z.object({
  anonymous_trial: z.number().int().min(0),
  free_plan_grant: z.number().int().min(0),
  hold_ttl_seconds: z.number().int().min(1),
});
export type CreditsConfig = z.infer<typeof CreditsConfigSchema>;

export function loadCreditsConfig(file: string): CreditsConfig {
  const parsed = CreditsConfigSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`CREDITS_CONFIG ${file}: ${parsed.error.message}`);
  return parsed.data;
}
