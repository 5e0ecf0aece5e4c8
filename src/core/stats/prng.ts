// The one seeded random number generator of the core (and its benchmarks): generated instance sets,
// the exact tests' sampled sign flips and the simulators are all reproducible from their seed.

/** A small deterministic PRNG (mulberry32): uniform numbers in [0, 1) from a 32-bit seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
