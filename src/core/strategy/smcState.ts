// The smc strategy's state and moves: SMCEvolve's sequential Monte Carlo over candidates, one
// Metropolis-Hastings move per cycle (the strategy object is in smc.ts, the arithmetic in smcMath.ts).
// A run holds N particles (candidates). Each iteration raises the temperature lambda by the largest
// step that keeps the effective sample size >= kappa*N (bisection; no evaluation needed), resamples
// the particles by softmax of the reward increment, then moves each particle K times: a child is
// proposed (kernel by Thompson sampling: a local diff or a subsystem rewrite) and accepted with
// min(1, exp(beta_t * (R' - R))); a gate failure is never accepted. A run ends at lambda = 1,
// T_max iterations, or a stalled best reward, and the next cycle starts a new run from the champion.
// Everything lives in `.satlution/smc.json`, written after each decision: a resumed cycle continues.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { prng } from '../stats/prng';
import type { SmcConfig } from '../config/schema';
import { rankingPar2, type EvalDoc } from '../eval/evalDoc';
import { writeJsonAtomic } from '../store/atomic';
import { candidateDirName, STATE_DIR } from '../layout';
import { acceptance, ess, nextLambda, reward, systematicResample, thompson, updateArms, weights } from './smcMath';
import type { ParentChoice, ProposalOutcome } from './seam';

/** The proposal kernels: edit scope x whether the best particles are shown as inspiration. */
export const KERNELS = ['diff', 'diff+inspiration', 'rewrite', 'rewrite+inspiration'] as const;
/** What each kernel asks of the proposal (the plan's hint). */
export const KERNEL_HINT: Record<(typeof KERNELS)[number], string> = {
  diff: 'diff: one localized change to a single heuristic or function',
  'diff+inspiration': 'diff+inspiration: one localized change, borrowing from the best particles',
  rewrite: 'rewrite: replace or restructure a whole subsystem',
  'rewrite+inspiration': 'rewrite+inspiration: restructure a subsystem, borrowing from the best particles',
};

const Particle = z.object({ candidate: z.number().int().nonnegative(), reward: z.number().min(0).max(1).nullable() });
/** The state of the SMC runs, `.satlution/smc.json`. */
export const SmcState = z.object({
  run: z.number().int().positive(),
  iteration: z.number().int().nonnegative(),
  lambda: z.number().min(0).max(1),
  /** The reference PAR-2 of rewards (the run's starting champion); null until measured. */
  reference_par2: z.number().nonnegative().nullable(),
  particles: z.array(Particle),
  /** This iteration's MH chains: one per particle slot, with its current state and moves done. */
  chains: z.array(z.object({ state: Particle, moves: z.number().int().nonnegative() })),
  kernels: z.record(z.string(), z.object({ a: z.number().positive(), b: z.number().positive() })),
  best: Particle.nullable(),
  stall: z.number().int().nonnegative(),
  /** The move in flight: which chain, from which state, with which kernel, in which cycle. */
  move: z.object({ cycle: z.number().int().positive(), chain: z.number().int().nonnegative(), kernel: z.string() }).nullable(),
  history: z.array(
    z.object({
      run: z.number().int(),
      iteration: z.number().int(),
      lambda: z.number(),
      ess: z.number(),
      best: z.number().nullable(),
      accepted: z.number().int(),
      moves: z.number().int(),
    }),
  ),
  ended: z.array(z.object({ run: z.number().int(), reason: z.string() })),
  accepted: z.number().int().nonnegative(),
  moves: z.number().int().nonnegative(),
});
/** The parsed state of the SMC runs. */
export type SmcState = z.infer<typeof SmcState>;

/** The state's file in a workspace. */
export const smcFile = (ws: string) => path.join(ws, STATE_DIR, 'smc.json');

/** The saved state, or undefined when there is none (or it is unreadable). */
export async function readSmc(ws: string): Promise<SmcState | undefined> {
  try {
    const p = SmcState.safeParse(JSON.parse(await fs.readFile(smcFile(ws), 'utf8')));
    return p.success ? p.data : undefined;
  } catch {
    return undefined;
  }
}

const save = (ws: string, s: SmcState) => writeJsonAtomic(smcFile(ws), s);

function freshRun(prev: SmcState | undefined, cfg: SmcConfig, champion: number, championPar2: number | null): SmcState {
  const p = { candidate: champion, reward: championPar2 === null ? null : 0.5 };
  return {
    run: (prev?.run ?? 0) + 1,
    iteration: 0,
    lambda: 0,
    reference_par2: championPar2,
    particles: Array.from({ length: cfg.particles }, () => ({ ...p })),
    chains: [],
    kernels: prev?.kernels ?? Object.fromEntries(KERNELS.map((k) => [k, { a: 1, b: 1 }])),
    best: p.reward === null ? null : p,
    stall: 0,
    move: null,
    history: prev?.history ?? [],
    ended: prev?.ended ?? [],
    accepted: 0,
    moves: 0,
  };
}

const par2Of = (json: EvalDoc | undefined) => rankingPar2(json);

/** Why the run is over, or undefined. */
function endReason(s: SmcState, cfg: SmcConfig): string | undefined {
  if (s.lambda >= 1) return `lambda reached 1 after ${s.iteration} iteration${s.iteration > 1 ? 's' : ''} (the population has concentrated)`;
  if (s.iteration >= cfg.max_iterations) return `T_max = ${cfg.max_iterations} iterations`;
  if (s.stall >= cfg.stall) return `the best reward has not improved for ${s.stall} iterations`;
  if (cfg.max_evaluations !== undefined && s.moves >= cfg.max_evaluations) return `its budget of ${cfg.max_evaluations} evaluations is spent`;
  return undefined;
}

/** Remaining evaluations: this iteration's moves left plus the expected iterations at the mean step so far. */
export function forecast(s: SmcState, cfg: SmcConfig): number {
  const left = s.chains.reduce((n, c) => n + Math.max(0, cfg.mh_steps - c.moves), 0);
  const done = s.history.filter((h) => h.run === s.run);
  const meanStep = done.length ? s.lambda / done.length : 1 / cfg.min_iterations;
  const iterations = s.lambda >= 1 ? 0 : Math.min(cfg.max_iterations - s.iteration, Math.ceil((1 - s.lambda) / Math.max(meanStep, 1e-3)));
  return left + Math.max(0, iterations) * cfg.particles * cfg.mh_steps;
}

/** Starts a new iteration: temperature step, weights, resampling, fresh chains. */
function newIteration(s: SmcState, cfg: SmcConfig): SmcState {
  const rewards = s.particles.map((p) => p.reward ?? 0);
  const lambda = nextLambda(rewards, s.lambda, cfg.beta, cfg.kappa, 1 / cfg.min_iterations);
  const w = weights(rewards, (lambda - s.lambda) * cfg.beta);
  const picks = systematicResample(w, prng(s.run * 1009 + s.iteration * 31 + 7)());
  const particles = picks.map((i) => ({ ...s.particles[i]! }));
  return {
    ...s,
    iteration: s.iteration + 1,
    lambda,
    particles,
    chains: particles.map((p) => ({ state: { ...p }, moves: 0 })),
    history: [...s.history, { run: s.run, iteration: s.iteration + 1, lambda, ess: ess(w), best: s.best?.reward ?? null, accepted: 0, moves: 0 }],
  };
}

/** The cycle's parent: the next chain's state to move (a new iteration or run when due), with the kernel drawn for the move. */
export async function smcParent(ws: string, cfg: SmcConfig, cycle: number, champion: number, championJson: EvalDoc | undefined): Promise<ParentChoice> {
  let s = await readSmc(ws);
  // A move still in flight for this cycle (a crash after choosing): the same choice again.
  if (s?.move?.cycle === cycle) {
    const c = s.chains[s.move.chain]!;
    return {
      parent: c.state.candidate,
      island: s.move.chain,
      how: describe(s, cfg, s.move.chain, s.move.kernel),
      hint: KERNEL_HINT[s.move.kernel as (typeof KERNELS)[number]] ?? s.move.kernel,
    };
  }
  const notes: string[] = [];
  if (!s) s = freshRun(undefined, cfg, champion, par2Of(championJson));
  for (;;) {
    const open = s.chains.findIndex((c) => c.moves < cfg.mh_steps);
    const spent = cfg.max_evaluations !== undefined && s.moves >= cfg.max_evaluations;
    if (open >= 0 && !spent) break;
    if (spent) s = { ...s, chains: s.chains.map((c) => ({ ...c, moves: cfg.mh_steps })) }; // the run stops mid-iteration
    // The iteration is over (or none began): the chains' states become the particles.
    if (s.chains.length) s = endIteration(s);
    const why = s.iteration > 0 ? endReason(s, cfg) : undefined;
    if (why) {
      notes.push(`SMC run ${s.run} ended: ${why}`);
      s = freshRun({ ...s, ended: [...s.ended, { run: s.run, reason: why }] }, cfg, champion, par2Of(championJson));
    }
    s = newIteration(s, cfg);
  }
  const chain = s.chains.findIndex((c) => c.moves < cfg.mh_steps);
  const kernel = thompson(s.kernels, prng(cycle * 7907 + 13));
  s = { ...s, move: { cycle, chain, kernel } };
  await save(ws, s);
  return {
    parent: s.chains[chain]!.state.candidate,
    island: chain,
    how: [...notes, describe(s, cfg, chain, kernel)].join('; '),
    hint: KERNEL_HINT[kernel as (typeof KERNELS)[number]],
  };
}

function describe(s: SmcState, cfg: SmcConfig, chain: number, kernel: string): string {
  return `SMC run ${s.run}, iteration ${s.iteration} (lambda ${s.lambda.toFixed(3)}, beta_t ${(s.lambda * cfg.beta).toFixed(1)}): particle ${chain + 1}/${cfg.particles}, move ${s.chains[chain]!.moves + 1}/${cfg.mh_steps}, kernel ${kernel}; about ${forecast(s, cfg)} evaluations left in this run`;
}

function endIteration(s: SmcState): SmcState {
  const particles = s.chains.map((c) => ({ ...c.state }));
  const top = particles.filter((p) => p.reward !== null).sort((a, b) => b.reward! - a.reward!)[0] ?? null;
  const improved = top !== null && (s.best === null || top.reward! > s.best.reward! + 1e-9);
  return { ...s, particles, chains: [], best: improved ? top : s.best, stall: improved ? 0 : s.stall + 1 };
}

/** The outcome of a cycle's proposal (or of the parent's measurement): the MH decision and the kernel's score. */
export async function smcRecord(ws: string, cfg: SmcConfig, o: ProposalOutcome): Promise<string | undefined> {
  let s = await readSmc(ws);
  if (!s) return undefined;
  const par2 = par2Of(o.json);
  // The run's reference is the first champion measurement it sees.
  if (s.reference_par2 === null && par2 !== null && o.candidate === s.particles[0]?.candidate) {
    const fill = (p: { candidate: number; reward: number | null }) => (p.candidate === o.candidate && p.reward === null ? { ...p, reward: 0.5 } : p);
    s = {
      ...s,
      reference_par2: par2,
      particles: s.particles.map(fill),
      chains: s.chains.map((c) => ({ ...c, state: fill(c.state) })),
      best: s.best ?? { candidate: o.candidate, reward: 0.5 },
    };
  }
  const m = s.move;
  if (!m || m.cycle !== o.cycle || o.island !== m.chain) {
    await save(ws, s);
    return undefined;
  }
  const chain = s.chains[m.chain]!;
  if (o.candidate === chain.state.candidate) {
    await save(ws, s); // the parent's own measurement, not the move
    return undefined;
  }
  const failed = !o.json || o.json.verdict !== 'pass' || par2 === null;
  const r = chain.state.reward ?? 0.5;
  const rNew = failed || s.reference_par2 === null ? 0 : reward(par2, s.reference_par2);
  const betaT = s.lambda * cfg.beta;
  const alpha = acceptance(betaT, r, rNew, failed);
  const accepted = prng(o.candidate * 104729 + o.cycle)() < alpha;
  const chains = s.chains.map((c, i) => (i === m.chain ? { state: accepted ? { candidate: o.candidate, reward: rNew } : c.state, moves: c.moves + 1 } : c));
  const history = s.history.map((h, i) => (i === s!.history.length - 1 ? { ...h, moves: h.moves + 1, accepted: h.accepted + (accepted ? 1 : 0) } : h));
  const best = accepted && (s.best === null || rNew > (s.best.reward ?? 0)) ? { candidate: o.candidate, reward: rNew } : s.best;
  s = {
    ...s,
    chains,
    history,
    best,
    kernels: updateArms(s.kernels, m.kernel, !failed && rNew > r),
    move: null,
    moves: s.moves + 1,
    accepted: s.accepted + (accepted ? 1 : 0),
  };
  await save(ws, s);
  return `SMC: ${candidateDirName(o.candidate)} ${failed ? 'failed its gates: rejected' : `reward ${rNew.toFixed(3)} vs ${r.toFixed(3)}, acceptance ${alpha.toFixed(2)}: ${accepted ? 'accepted' : 'rejected'}`} (kernel ${m.kernel})`;
}
