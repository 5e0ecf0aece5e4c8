// Same-session comparisons: two solvers measured side by side on one perf set, in the same time window,
// on the same runner, so a drift of the machine (a build in another window, thermal throttling, a
// neighbour's job) moves both alike and cancels in the paired differences. On a local runner with n
// slots, n lanes run at once; each lane takes every n-th instance and runs its pair back to back,
// pinned to one core (taskset), the order alternating from one instance to the next (ABBA): the two runs
// of a pair share a core and a moment (on this project's 2-core machine the two cores differ in speed
// by up to 2x from one second to the next). With one slot, or on a remote runner (which syncs each
// solver first), blocks of the slots run A then B, then B then A. Nothing stored earlier is reused:
// each side runs under a session key of its own (runSet's `session`). A cycle's race is the same with
// several B sides sharing A's runs (the scheduler is scheduler.ts, the rules race.ts; duels.ts keeps them),
// each B's pairs a duel of its own. The one way a race, the held-out check, `satlution compare
// --measure` and the noise calibration measure pairs, on the perf stage as eval/perfSession.ts opens it.
import * as path from 'node:path';
import type { Config } from '../config/schema';
import { RaceDoc } from '../eval/evalDoc';
import type { AuditOutcome, AuditRandom } from '../eval/audit';
import type { StagePlan } from '../eval/gates';
import { basisOf, par2Of, timeOn, type TimeBasis } from '../eval/metrics';
import { openPerfSession, type PerfSession } from '../eval/perfSession';
import type { PlanOverrides } from '../eval/plan';
import { solverIdentity } from '../eval/resultsStore';
import { EvaluationSetupError } from '../eval/service';
import { isolationFor } from '../isolation/settings';
import { buildSolver } from '../run/buildSolver';
import { slotCpu } from '../run/cpus';
import { FATAL, type InstanceResult } from '../run/result';
import type { RunnerEnv } from '../runners/select';
import { writeJsonAtomic } from '../store/atomic';
import { compareRuns, type Comparison } from './comparison';
import { duelFamilies } from './familyCheck';
import { heldOutAgain } from './heldOut';
import { duelsDir, newSessionName, type DuelDoc, type DuelPurpose } from './duels';
import { capFor, dropBelow, firstLook, lowerBound, raceAgain, raceCall, raceLook, raceOrder, raceSettle, type LookContext, type RacePolicy } from './race';
import { runSession, furtherRuns, sidePairs, type SessionSide, type Side } from './scheduler';

/** What to measure side by side. */
export interface DuelRequest {
  ws: string | undefined;
  config: Config;
  /** A: the reference (the champion); B: the challenger. The same directory twice is an A/A test. */
  a: string;
  b: string;
  purpose: DuelPurpose;
  cycle?: number;
  /** The perf stage's set and limits instead of the config's (a held-out set). */
  overrides?: Pick<PlanOverrides, 'bench' | 'runner' | 'jobs' | 'timeoutS'>;
  on: TimeBasis;
  bandPct: number;
  alpha: number;
  /** Build both first (default false: a cycle's candidates were built by their evaluations). */
  build?: boolean;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  /** The survivors' perf audit draw (default: crypto randomness). */
  auditRandom?: AuditRandom;
  /** Progress: runs done of all (both sides), and which side just ran a block. */
  onProgress?: (done: number, total: number, message: string) => void;
}

/** The measurement and the comparison it supports, kept on disk in a workspace. */
export interface Duel {
  doc: DuelDoc;
  /** The comparison on the duel's pairs (what a decision uses). */
  cmp: Comparison;
  a: InstanceResult[];
  b: InstanceResult[];
}

/** Measures A and B side by side on the perf stage's set, interleaved instance by instance (ABBA). */
export async function measureSideBySide(req: DuelRequest): Promise<Duel> {
  const { duels } = await measureTogether({ ...req, challengers: [req.b] });
  return duels[0]!;
}

/** Several challengers against one reference in one session (a cycle's race): each gets its own duel, all paired with the same runs of A. */
export interface TogetherRequest extends Omit<DuelRequest, 'b'> {
  /** The challengers' directories (B sides), in the order they rotate in. */
  challengers: readonly string[];
  /** Race them (race.ts): cross-section order, caps, futility drops. Without, every side runs the whole set, by name. */
  race?: RacePolicy;
  /** The session's name, kept by a caller that may resume it (its stored runs are reused then); else a new one. */
  session?: string;
  /** Without a race: stop the session once this says so, given the challenger's pairs (the held-out check, heldOut.ts heldOutLook). */
  stopWhen?: (pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => string | undefined;
  /**
   * Where the challengers' runs keep their proofs for the audits (a cycle's hold, released when its
   * decision is made); absent, or for the champion's side, proofs are required but not kept.
   */
  hold?: string;
  /** The perf stage, opened already by a caller that needed its set first (the held-out check); else opened here with `overrides`. */
  perf?: PerfSession;
}

/** Measures the challengers side by side with A in one session; each duel is kept in the workspace. */
export async function measureTogether(req: TogetherRequest): Promise<{ session: string; duels: RacedDuel[] }> {
  const perf =
    req.perf ??
    (await openPerfSession({
      ws: req.ws,
      config: req.config,
      runnerEnv: req.runnerEnv,
      ...(req.overrides ? { overrides: req.overrides } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.auditRandom ? { auditRandom: req.auditRandom } : {}),
    }));
  const { plan, instances } = perf;
  if (!instances.length) throw new EvaluationSetupError(`benchmark set ${plan.dir} has no instances to measure on`);
  // In a cycle every side was built by its evaluation; `calibrate` and `compare --measure` build first, confined.
  for (const dir of req.build ? new Set([req.a, ...req.challengers]) : []) {
    const built = await buildSolver(dir, req.config.evaluation.build_timeout_s, req.signal, isolationFor(req.config));
    if (!built.ok) throw new EvaluationSetupError(`${path.basename(dir)} does not build: ${built.detail}`);
  }
  const session = req.session ?? newSessionName();
  // A cross-section stratified by family (race.ts), by the champion's times in a race, else by name:
  // fixed, so a resumed or repeated session runs the same instances in the same lanes, and any prefix a
  // look (futility, the sequential held-out check) judges on is a fair sample of the set.
  const order = raceOrder(instances, req.race?.reference ?? new Map<string, number>());
  const slots = Math.max(1, plan.jobs ?? 1);
  // Remote runners sync each solver before its runs; two syncs into one remote workdir at once are not worth the risk.
  const lanes = perf.local ? slots : 1;
  const started = new Date().toISOString();
  const keys = req.challengers.map((_, k) => (req.challengers.length === 1 ? 'B' : `B${k + 1}`));
  const dirOf = (side: Side) => (side === 'A' ? req.a : req.challengers[keys.indexOf(side)]!);
  let done = 0;
  let further = 0;
  const total = (1 + req.challengers.length) * order.length;
  const policy = req.race;
  // A look asks what the promotion test at the end will (the level the race's challengers share).
  const lookCtx: LookContext = {
    of: order.length,
    timeoutS: plan.timeoutS,
    test: { level: req.alpha / 2, rankBy: req.config.evaluation.rank_by, marginPct: req.config.strategy.min_improvement_pct },
    minInstances: firstLook(instances, policy?.racing.min_instances ?? 1),
  };
  const names = order.map((i) => i.name);
  const out = await runSession({
    order,
    challengers: keys,
    lanes,
    block: slots,
    timeoutS: plan.timeoutS,
    run: async (side, chunk, o) => {
      // Pinned lanes: a pair's runs meet the same core (cores of one machine can differ in speed by 2x),
      // the core the local pool would give that slot anyway (run/cpus.ts): every run looks alike.
      const lane = o.lane === undefined ? {} : { single: true, cpu: slotCpu(o.lane, lanes) ?? null };
      const results = await perf.run(dirOf(side), chunk, {
        // Each side its own session key: an A/A test of one directory must run twice, not reuse itself; a run
        // again (in full, or a second run) gets a key of its own: the stored first run must not stand in for it.
        session: `${session}:${side}${o.repeat ? `:again${o.repeat}` : ''}`,
        caps: o.caps,
        hold: side === 'A' ? null : (req.hold ?? null),
        ...lane,
      });
      // A run again is beyond the set's count: progress counts first runs, and says how many ran again.
      if (o.repeat) further += results.length;
      else done += results.length;
      req.onProgress?.(
        done,
        total,
        `${side === 'A' ? 'A' : path.basename(dirOf(side))} ran ${chunk.map((i) => i.name).join(', ')}${o.repeat ? ` again (${further} further runs so far)` : ''}`,
      );
      return results;
    },
    // A survivor whose decision is in doubt runs again where the variance is, raced or not; the
    // held-out check's families in doubt run again likewise (heldOut.ts heldOutAgain).
    ...(policy
      ? {
          again: raceAgain(policy, plan.timeoutS, req.config.evaluation.rank_by, {
            level: req.alpha / 2,
            marginPct: req.config.strategy.min_improvement_pct,
            families: req.config.evaluation.families,
          }),
        }
      : req.purpose === 'held-out'
        ? { again: heldOutAgain(req.config.evaluation.families, req.config.evaluation.rank_by, plan.timeoutS, req.on) }
        : {}),
    ...(policy?.racing.enabled
      ? {
          cap: (name: string) => capFor(policy.reference.get(name), plan.timeoutS, policy.racing),
          look: raceLook(policy, names, lookCtx),
          settle: raceSettle(policy, plan.timeoutS, req.alpha / 2, req.config.evaluation.rank_by),
        }
      : req.stopWhen
        ? { look: (_side: Side, pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => req.stopWhen!(pairs) }
        : {}),
  });
  const ended = new Date().toISOString();
  const hashA = await solverIdentity(req.a);
  const duels: RacedDuel[] = [];
  for (const [k, side] of keys.entries()) {
    const s = out.b.get(side)!;
    const sp = sidePairs(out, side, order);
    const [paired, rb] = [sp.map((p) => p.a), sp.map((p) => p.b)];
    const again = furtherRuns(sp);
    const cmp = compareRuns(paired, rb, plan.timeoutS, {
      alpha: req.alpha,
      on: req.on,
      bandPct: req.bandPct,
      rankBy: req.config.evaluation.rank_by,
      again,
      families: req.config.evaluation.families,
    });
    // One the race dropped ran part of the set, a few instances of each family: figures per family would
    // be noise shown as findings, so its duel keeps none (the held-out check, stopped by its own rule, keeps them).
    const droppedByRace = Boolean(policy && s.dropped);
    const wall = compareRuns(paired, rb, plan.timeoutS, { alpha: req.alpha, on: 'wall' });
    const race = policy
      ? raceDoc({ s, paired, rb, names, lookCtx, on: req.on, policy, entrants: keys.length, session: sessionOf(session, k, keys.length) })
      : undefined;
    const doc: DuelDoc = {
      session: sessionOf(session, k, keys.length),
      purpose: req.purpose,
      cycle: req.cycle ?? null,
      a: { dir: req.a, hash: hashA },
      b: { dir: req.challengers[k]!, hash: await solverIdentity(req.challengers[k]!) },
      set: plan.dir,
      runner: perf.runner,
      timeout_s: plan.timeoutS,
      on: cmp.on,
      started_at: started,
      ended_at: ended,
      block: lanes > 1 ? 1 : slots,
      together: lanes > 1,
      pairs: sp.map((p) => ({
        instance: p.a.instance,
        family: p.a.family ?? p.b.family ?? null,
        order: orderOf(p.order, side),
        a: brief(p.a),
        b: brief(p.b),
        ...(p.again ? { again: p.again.map((x) => ({ order: orderOf(x.order, side), a: brief(x.a), b: brief(x.b) })) } : {}),
      })),
      comparison: {
        par2A: cmp.par2A,
        par2B: cmp.par2B,
        diff: cmp.diff,
        ci95: cmp.ci95,
        p: cmp.test.p,
        n: cmp.common,
        verdict: cmp.verdict,
        level: cmp.level,
        band_pct: cmp.band_pct,
        wall_par2A: wall.par2A,
        wall_par2B: wall.par2B,
        ...(cmp.again ? { again: cmp.again } : {}),
        ...(cmp.families && !droppedByRace ? { families: duelFamilies(cmp.families) } : {}),
      },
      fatal: fatalOf('B', rb) ?? fatalOf('A', paired),
      ...(race ? { race } : {}),
      ...(!race && s.dropped ? { stopped: { after: s.dropped.after, of: order.length, reason: s.dropped.reason } } : {}),
    };
    if (req.ws) await writeJsonAtomic(path.join(duelsDir(req.ws), `${doc.session}.json`), doc);
    // A race's survivor is audited as a perf stage is (a sample of its UNSAT answers with proofs): its
    // results become its perf measurement. One dropped can never be promoted; its answers decide nothing.
    const audit = race?.outcome === 'survived' && !doc.fatal ? await perf.audit(req.challengers[k]!, rb) : undefined;
    // A challenger the race dropped decides nothing: the proofs its runs kept go now. A duel stopped by
    // its own rule (the held-out check) keeps them: the audit of its answers comes next, and the cycle
    // releases its hold once it decided.
    if (req.hold && race && s.dropped) await perf.release(req.hold, keptRuns(rb, req.hold));
    const checked = audit ? rb.map((r) => audit.checked.get(r.instance) ?? r) : rb;
    duels.push({ doc, cmp, a: paired, b: checked, ...(race ? { race, plan: { ...plan, audit: undefined } } : {}), ...(audit ? { audit } : {}) });
  }
  return { session, duels };
}

/** A duel of a race: B's race, the stage it ran as, and a survivor's perf audit. */
export interface RacedDuel extends Duel {
  race?: RaceDoc;
  plan?: StagePlan;
  audit?: AuditOutcome;
}

/** The k-th challenger's duel in a session of `n`: the session itself for one, else with its number. */
const sessionOf = (session: string, k: number, n: number) => (n === 1 ? session : `${session}.${k + 1}`);

/** AB when A ran the instance before this side, else BA. */
const orderOf = (sequence: readonly Side[] | undefined, side: Side): 'AB' | 'BA' => (!sequence || sequence.indexOf('A') < sequence.indexOf(side) ? 'AB' : 'BA');

/** A side that crashed or answered wrongly in the duel. */
const fatalOf = (side: 'A' | 'B', rs: readonly InstanceResult[]) => {
  const f = rs.find((r) => FATAL.has(r.status));
  return f ? { side, detail: `${f.instance}: ${f.status}: ${f.detail}` } : null;
};

/** A challenger's race as its documents keep it. */
function raceDoc(race: {
  s: SessionSide;
  paired: InstanceResult[];
  rb: InstanceResult[];
  names: readonly string[];
  lookCtx: LookContext;
  on: TimeBasis;
  policy: RacePolicy;
  entrants: number;
  session: string;
}): RaceDoc {
  const { s } = race;
  const { timeoutS, of } = race.lookCtx;
  // CPU only where every run of the race has a CPU time (metrics.ts basisOf).
  const on = basisOf(race.on, [...race.paired, ...race.rb]);
  const byB = new Map(race.rb.map((r) => [r.instance, r]));
  const pairs = race.paired.map((x) => ({
    champion: par2Of(x, timeoutS, on),
    challenger: lowerBound(byB.get(x.instance)!, s.caps.get(x.instance) ?? timeoutS, timeoutS, on),
  }));
  const call = raceCall(
    race.policy,
    race.names,
    race.lookCtx,
    race.paired.map((x) => ({ a: x, b: byB.get(x.instance)!, capS: s.caps.get(x.instance) ?? timeoutS })),
  );
  const championS = pairs.reduce((t, p) => t + p.champion, 0);
  const challengerS = pairs.reduce((t, p) => t + p.challenger, 0);
  const stored = [...race.policy.reference.values()];
  const storedPar2 = stored.length ? stored.reduce((t, x) => t + x, 0) / stored.length : 0;
  return {
    outcome: s.dropped ? 'rejected early' : 'survived',
    on,
    ran: s.results.size,
    of,
    capped: s.capped,
    session: race.session,
    entrants: race.entrants,
    speedup_pct: round(call.speedupPct),
    pass_chance: call.chance === null ? null : Number(call.chance.toPrecision(3)),
    drop_below: dropBelow(pairs.length, of),
    champion_reruns: s.rerun,
    challenger_s: round(challengerS),
    champion_s: round(championS),
    estimated_par2: s.dropped && championS > 0 ? round((challengerS / championS) * storedPar2) : null,
    spent_s: round(race.rb.reduce((t, r) => t + timeOn(r, on), 0)),
    reason: s.dropped
      ? s.dropped.reason
      : `ran all ${of} instances${s.rerun ? ` (${s.rerun} instance${s.rerun > 1 ? 's' : ''} run again in full by both, ${s.capped} of them capped for it)` : ''}: its pairs with the champion decide`,
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** A run as a pair keeps it, with its answer: the promotion audit (decide/promotionAudit.ts) proof-checks the UNSAT answers a gain rests on. */
const brief = (r: InstanceResult) => ({
  status: r.status,
  time_s: r.time_s,
  cpu_s: r.cpu_s ?? null,
  answer: r.answer,
  ...(r.proof?.kept ? { run: r.proof.kept.run } : {}),
});

/** The keys of the runs among `rs` that kept a proof in `hold`. */
const keptRuns = (rs: readonly InstanceResult[], hold: string): string[] => rs.flatMap((r) => (r.proof?.kept?.hold === hold ? [r.proof.kept.run] : []));
