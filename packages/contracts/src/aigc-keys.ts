/**
 * The GB 45438-2025 implicit label's seven keys, in the standard's order: the one list the contract's `AigcRecord`,
 * the server's integrity code and the containers' labels (`@polyvox/speech/formats`) are made of. No import, no Node:
 * the console's formats read it too (the subpath `@polyvox/contracts/aigc-keys`).
 */
export const AIGC_KEYS = [
  'Label',
  'ContentProducer',
  'ProduceID',
  'ReservedCode1',
  'ContentPropagator',
  'PropagateID',
  'ReservedCode2',
] as const;
export type AigcKey = (typeof AIGC_KEYS)[number];
