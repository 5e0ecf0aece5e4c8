// Benchmark: what "a promotion rests only on checked answers" costs an honest winner. Synthetic duels
// (BENCH_INSTANCES, 44: times log-uniform 0.05-30 s, a 60 s timeout, a share BENCH_UNSAT (0.5) of them UNSAT,
// per-run noise log-sd BENCH_NOISE, 0.05), a challenger BENCH_GAIN (0.1) faster everywhere, decided by the
// real promotion test (duelComparison, greedyAccept at the level of a race of 3, 5% margin). For each
// winner, the real proveUntilPasses checks its UNSAT answers, largest saving first, two at a time, all
// verifying (an honest solver), until the test passes on checked answers. Printed: winners, how many
// still pass (all should: honest proofs verify), answers checked, and the checks' CPU in evaluations of
// the champion's set, with drat-trim at BENCH_CHECK_RATIO (1.04: its CPU over kissat's solving CPU on the
// demo's UNSAT proofs, docs/evaluation.md) times the solving time. BENCH_DECISIONS (200), BENCH_SEED (1).
import { duelComparison, promotionLevel } from '../src/core/decide/againstChampion';
import type { DuelDoc, DuelPair } from '../src/core/decide/duels';
import { duelOf } from '../test/fixtures/duelDocs';
import { answersIn, proveUntilPasses, type CheckAnswers } from '../src/core/decide/promotionAudit';
import { greedyAccept } from '../src/core/decide/promotionRule';
import { prng } from '../src/core/stats/prng';

const N = Number(process.env.BENCH_INSTANCES ?? 44);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 200);
const GAIN = Number(process.env.BENCH_GAIN ?? 0.1);
const NOISE = Number(process.env.BENCH_NOISE ?? 0.05);
const RATIO = Number(process.env.BENCH_CHECK_RATIO ?? 1.04);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const UNSAT_SHARE = Number(process.env.BENCH_UNSAT ?? 0.5);
const T = 60;

/** A standard normal draw from a uniform source (Box-Muller). */
const normal = (u: () => number) => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());

/** One duel of the world drawn by `u`: the champion (A) and a challenger GAIN faster (B), each run with its own noise. */
function drawDuel(u: () => number): DuelDoc {
  const pairs: DuelPair[] = [];
  for (let k = 0; k < N; k++) {
    const t = Math.exp(Math.log(0.05) + u() * (Math.log(30) - Math.log(0.05)));
    const answer = (k + 0.5) / N < UNSAT_SHARE ? ('UNSAT' as const) : ('SAT' as const);
    const run = (x: number) => {
      const s = x * Math.exp(NOISE * normal(u));
      return s >= T ? { status: 'timeout', time_s: T, cpu_s: T, answer: null } : { status: 'solved', time_s: s, cpu_s: s, answer };
    };
    pairs.push({ instance: `i${k}.cnf`, order: k % 2 ? 'AB' : 'BA', a: run(t), b: run(t * (1 - GAIN)) });
  }
  return duelOf(pairs, T);
}

async function main(): Promise<void> {
  const level = 2 * promotionLevel(0.05, 3);
  const u = prng(SEED);
  const costs: number[] = [];
  const counts: number[] = [];
  let winners = 0;
  let kept = 0;
  const t0 = Date.now();
  for (let k = 0; k < DECISIONS; k++) {
    const d = drawDuel(u);
    if (!passesMargin(d, level)) continue;
    winners++;
    let checkedS = 0;
    const check: CheckAnswers = async (batch) => {
      checkedS += batch.reduce((s, a) => s + RATIO * a.challenger_s, 0);
      return {
        failures: [],
        rows: batch.map((a) => ({
          instance: a.instance,
          verdict: 'ok' as const,
          status: 'solved' as const,
          answer: 'UNSAT' as const,
          time_s: a.challenger_s,
          check: { kind: 'drat' as const, ok: true, time_s: 0, detail: '' },
          detail: '',
          from: a.from,
          champion_s: a.champion_s,
          challenger_s: a.challenger_s,
          champion_status: a.champion_status,
        })),
      };
    };
    const p = await proveUntilPasses(d, answersIn(d, { first: new Map(), again: [] }, 'duel'), (x) => passesMargin(x, level), check, 2);
    if (p.passed) kept++;
    const championS = d.pairs.reduce((s, x) => s + (x.a.status === 'solved' ? x.a.cpu_s! : 2 * T), 0);
    costs.push(checkedS / championS);
    counts.push(p.rows.length);
  }
  const sorted = [...costs].sort((a, b) => a - b);
  const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))] ?? 0;
  const mean = costs.reduce((s, x) => s + x, 0) / Math.max(1, costs.length);
  console.log(
    `promotion proofs: ${DECISIONS} duels of ${N} instances (${Math.round(100 * UNSAT_SHARE)}% UNSAT), a uniform ${100 * GAIN}% gain, noise log-sd ${NOISE}, drat-trim at ${RATIO}x the solving time, seed ${SEED} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  console.log(`  winners as measured: ${winners}; still promoted on checked answers: ${kept} (${((100 * kept) / Math.max(1, winners)).toFixed(1)}%)`);
  console.log(
    `  UNSAT answers checked per winner: mean ${(counts.reduce((s, x) => s + x, 0) / Math.max(1, counts.length)).toFixed(1)} of ${Math.round(N * UNSAT_SHARE)}, max ${Math.max(0, ...counts)}`,
  );
  console.log(
    `  checking CPU per winner, in evaluations of the champion's set: mean ${mean.toFixed(3)}, median ${q(0.5).toFixed(3)}, 90th percentile ${q(0.9).toFixed(3)}, max ${q(1).toFixed(3)}`,
  );
  console.log(
    JSON.stringify({
      bench: 'promotion-proofs',
      instances: N,
      unsat_share: UNSAT_SHARE,
      decisions: DECISIONS,
      winners,
      kept,
      mean_cost: mean,
      p90_cost: q(0.9),
      max_cost: q(1),
    }),
  );
}

/** The promotion rule of greedyAccept on a duel: significantly faster and at least 5% lower PAR-2 (on both runs' mean where there were second runs). */
function passesMargin(d: DuelDoc, level: number): boolean {
  const c = duelComparison(d, level, 'par2');
  return greedyAccept([{ candidate: 1, json: PASSING, cmp: c }], 0, 5).winner === 1;
}

/** A document that passed in full: what greedyAccept asks of a winner besides its comparison. */
const PASSING = {
  version: 1,
  solver: 'B',
  solver_hash: 'b'.repeat(64),
  runner: 'local',
  timeout_s: T,
  mem_limit_mb: 1024,
  verdict: 'pass',
  evaluated_at: '2026-01-01T00:00:00Z',
  instances: [],
  metrics: null,
  gates: [],
} as const satisfies Parameters<typeof greedyAccept>[0][number]['json'];

void main();
