// The arithmetic of sequential Monte Carlo over candidates (SMCEvolve): rewards, the tempering step
// chosen by bisection on the effective sample size, softmax weights by the reward increment,
// systematic resampling, the Metropolis-Hastings acceptance, and Thompson sampling over kernels.
// Pure functions; randomness comes from a seeded generator so a resumed run decides the same way.

/** Reward in [0, 1]: 0.5 at the reference PAR-2, 1 at twice as fast, 0 at twice as slow (clipped log-speedup). */
export function reward(par2: number, referencePar2: number): number {
  if (!(par2 > 0) || !(referencePar2 > 0)) return par2 === 0 && referencePar2 > 0 ? 1 : 0.5;
  return Math.min(1, Math.max(0, 0.5 + 0.5 * Math.log2(referencePar2 / par2)));
}

/** Normalized weights exp(dBeta * R_i) / sum (log-sum-exp shifted). */
export function weights(rewards: readonly number[], dBeta: number): number[] {
  const logs = rewards.map((r) => dBeta * r);
  const max = Math.max(...logs);
  const u = logs.map((l) => Math.exp(l - max));
  const sum = u.reduce((a, b) => a + b, 0);
  return u.map((x) => x / sum);
}

export function ess(w: readonly number[]): number {
  const s = w.reduce((a, b) => a + b, 0);
  const s2 = w.reduce((a, b) => a + b * b, 0);
  return s2 > 0 ? (s * s) / s2 : 0;
}

/**
 * The next lambda: the largest in (prev, min(1, prev + maxStep)] with ESS >= kappa * N, by bisection
 * (tolerance 1e-4). When even the smallest step breaks the threshold, the smallest step is taken.
 */
export function nextLambda(rewards: readonly number[], prev: number, beta: number, kappa: number, maxStep: number): number {
  const n = rewards.length;
  const top = Math.min(1, prev + maxStep);
  const ok = (l: number) => ess(weights(rewards, (l - prev) * beta)) >= kappa * n - 1e-9;
  if (ok(top)) return top;
  let lo = prev;
  let hi = top;
  while (hi - lo > 1e-4) {
    const mid = (lo + hi) / 2;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return Math.max(lo, prev + 1e-4);
}

/** Systematic resampling: one uniform draw u in [0, 1); returns N indices. */
export function systematicResample(w: readonly number[], u: number): number[] {
  const n = w.length;
  const out: number[] = [];
  let c = w[0] ?? 0;
  let i = 0;
  for (let k = 0; k < n; k++) {
    const p = (u + k) / n;
    while (p > c && i < n - 1) c += w[++i]!;
    out.push(i);
  }
  return out;
}

/** Metropolis-Hastings acceptance probability at inverse temperature betaT; a gate failure is never accepted. */
export function acceptance(betaT: number, r: number, rNew: number, failed: boolean): number {
  return failed ? 0 : Math.min(1, Math.exp(betaT * (rNew - r)));
}

// ---- Thompson sampling over Beta posteriors -------------------------------------------------------

function normal(rnd: () => number): number {
  const u = Math.max(rnd(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

/** Gamma(shape, 1) by Marsaglia and Tsang (shape < 1 boosted). */
export function gamma(shape: number, rnd: () => number): number {
  if (shape < 1) return gamma(shape + 1, rnd) * Math.pow(Math.max(rnd(), 1e-12), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rnd);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rnd();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(Math.max(u, 1e-300)) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

export function betaSample(a: number, b: number, rnd: () => number): number {
  const x = gamma(a, rnd);
  const y = gamma(b, rnd);
  return x / (x + y);
}

export interface Arm {
  a: number;
  b: number;
}

/** The arm whose posterior sample is highest (ties: the first). */
export function thompson(arms: Readonly<Record<string, Arm>>, rnd: () => number): string {
  let best = '';
  let top = -1;
  for (const [name, arm] of Object.entries(arms)) {
    const s = betaSample(arm.a, arm.b, rnd);
    if (s > top) {
      top = s;
      best = name;
    }
  }
  return best;
}

/** A success or failure on one arm; every arm decays by 0.99 (floored at 1) so old evidence fades. */
export function updateArms(arms: Record<string, Arm>, name: string, success: boolean): Record<string, Arm> {
  const out: Record<string, Arm> = {};
  for (const [k, v] of Object.entries(arms)) out[k] = { a: Math.max(1, v.a * 0.99), b: Math.max(1, v.b * 0.99) };
  const arm = out[name];
  if (arm) out[name] = success ? { ...arm, a: arm.a + 1 } : { ...arm, b: arm.b + 1 };
  return out;
}
