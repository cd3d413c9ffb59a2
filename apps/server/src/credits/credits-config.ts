import fs from 'node:fs';
import { z } from 'zod';

const CreditsConfigSchema = z.object({
  anonymous_trial: z.number().int().min(0),
  free_plan_grant: z.number().int().min(0),
  hold_ttl_seconds: z.number().int().min(1),
  model_coefficients: z.object({ default: z.number().positive() }).catchall(z.union([z.number().positive(), z.string()])),
  coefficient_by_engine: z.record(z.string(), z.number().positive()).default({}),
  /** Charged once when a designed (text_to_voice) or cloned voice is activated. */
  activation_fees: z
    .object({ text_to_voice: z.number().int().min(0), clone: z.number().int().min(0) })
    .default({ text_to_voice: 500, clone: 1000 }),
});
export type CreditsConfig = z.infer<typeof CreditsConfigSchema>;

export function loadCreditsConfig(file: string): CreditsConfig {
  const parsed = CreditsConfigSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`CREDITS_CONFIG ${file}: ${parsed.error.message}`);
  return parsed.data;
}

/** Credits per character of a model: its own coefficient, else its engine's, else the default. */
export function coefficientFor(config: CreditsConfig, model: string, engine: string): number {
  // hasOwn: the model may come from a request, and `constructor` is on every plain object.
  const own = Object.hasOwn(config.model_coefficients, model) ? config.model_coefficients[model] : undefined;
  if (typeof own === 'number') return own;
  const byEngine = Object.hasOwn(config.coefficient_by_engine, engine) ? config.coefficient_by_engine[engine] : undefined;
  return byEngine ?? config.model_coefficients.default;
}

export function priceOf(config: CreditsConfig, model: string, engine: string, characters: number): number {
  return Math.round(characters * coefficientFor(config, model, engine));
}
