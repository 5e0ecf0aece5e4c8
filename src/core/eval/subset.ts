import { createHash } from 'node:crypto';

/**
 * Whether an instance belongs to the share `fraction` of its set: a fixed draw per name (a hash), so
 * every run and every candidate sees the same subset, and a smaller share is inside a larger one.
 */
export function inSubset(name: string, fraction: number): boolean {
  if (fraction >= 1) return true;
  const h = createHash('sha256').update(name).digest();
  return h.readUInt32BE(0) / 2 ** 32 < fraction;
}
