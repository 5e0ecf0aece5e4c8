// The Verdicts view's data: the promotion rule in force, the calibrated noise, and per cycle how each
// challenger was judged: the same-session duel it met (decide/measureTogether.ts), or where racing stopped it
// (decide/race.ts). A duel's pairs stay out of the summary (a decision has as many as the perf set has
// instances); they are served per session when a person selects the decision.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { z } from 'zod';
import type { Config } from '../config/schema';
import { noiseRule, type CalibrationDoc, type NoiseDoc } from '../decide/calibration';
import { DuelDoc, duelsDir, pairTimes } from '../decide/duels';
import { parseCandidateDir } from '../layout';
import type { RunStatus } from '../run/result';
import type { CycleState } from '../store/cycleState';
import type { ParsedEval } from './read';
import { familiesAgainstParent, type FamilyDuel } from './parentFamilies';
import { explainComparison, explainSplit, marginGainPct } from '../explain';
import {
  RUN_STATUSES,
  SessionId,
  type DashCandidate,
  type DashDecision,
  type DashDuel,
  type DashRace,
  type DashRule,
  type DecisionOutcome,
  type DuelPairs,
  type NoiseRow,
  type VerdictsData,
} from './dashboardSchema';

/** A kept duel without its pairs: what the summary needs (the pairs are read again, in full, when asked for). */
const DuelHead = DuelDoc.omit({ pairs: true });
type DuelHead = z.infer<typeof DuelHead>;

/** Decisions kept in the summary, the newest (a workspace of thousands of cycles stays a small message). */
const MAX_DECISIONS = 500;

/** A percentage without a needless ".0" (5%, 3.1%). */
const pct = (x: number) => `${x.toFixed(1).replace(/\.0$/, '')}%`;
/** Seconds to the ms, never negative: figures travel rounded, so a decision is a few hundred bytes, not a kilobyte. */
const round3 = (x: number) => Math.max(0, Math.round(x * 1000) / 1000);
/** A signed figure (a gain, a difference) to a thousandth. */
const signed3 = (x: number) => Math.round(x * 1000) / 1000;
/** A p-value to 4 digits, within [0, 1]. */
const unit = (x: number) => Math.min(1, Math.max(0, Number.isFinite(x) ? +x.toPrecision(4) : 1));

/** The rule in force (noiseRule), with the basis decisions really use and a form short enough for a 300 px sidebar. */
export function ruleInForce(config: Config, cal: CalibrationDoc | undefined, cpuHere?: boolean): DashRule {
  const r = noiseRule(config, cal, cpuHere);
  // As noiseRule says it: CPU time, unless this machine or its calibration measured none.
  const basis = r.on === 'cpu' && (!cal || cal.cpu) && cpuHere !== false ? 'cpu' : 'wall';
  const short = `Decisions: ${basis === 'cpu' ? 'CPU' : 'wall'} time, raced side by side · PAR-2 test against run noise · margin ${pct(r.marginPct)} · ≤${pct(r.falsePromotionPct)} false promotions`;
  return { on: r.on, basis, bandPct: r.bandPct, marginPct: r.marginPct, falsePromotionPct: r.falsePromotionPct, calibrated: r.calibrated, line: r.line, short };
}

/** The calibration's noise of one basis as the dashboard shows it. */
function noiseRow(basis: NoiseRow['basis'], n: NoiseDoc): NoiseRow {
  return {
    basis,
    bandPct: n.band_pct,
    diffPct: n.diff_pct,
    p: unit(n.p),
    spreadMedianPct: n.spread_median_pct,
    spreadP90Pct: n.spread_p90_pct,
    aaSignificant: n.aa_significant,
  };
}

/** The candidate a duel side's directory is (duels keep full paths, possibly from another OS). */
const candidateOf = (dir: string): number | undefined => parseCandidateDir(dir.split(/[\\/]/).filter(Boolean).pop() ?? '');

/** A duel's comparison without its pairs. */
function dashDuel(d: DuelHead, purpose: DashDuel['purpose']): DashDuel {
  const c = d.comparison;
  return {
    session: d.session,
    purpose,
    on: d.on,
    n: Math.max(0, c.n),
    timeoutS: d.timeout_s,
    together: d.together,
    par2A: round3(c.par2A),
    par2B: round3(c.par2B),
    wallPar2A: round3(c.wall_par2A),
    wallPar2B: round3(c.wall_par2B),
    gainPct: signed3(marginGainPct(c)),
    ...(c.again
      ? { again: { instances: c.again.instances, ...(c.again.runs ? { runs: c.again.runs } : {}), par2A: round3(c.again.par2A), par2B: round3(c.again.par2B) } }
      : {}),
    ci95: [signed3(c.ci95[0]), signed3(c.ci95[1])],
    p: unit(c.p),
    ...(c.level !== undefined ? { level: unit(c.level) } : {}),
    bandPct: round3(c.band_pct),
    verdict: c.verdict,
    fatal: d.fatal ? `${d.fatal.side === 'B' ? 'the challenger' : 'the champion'}: ${d.fatal.detail}`.slice(0, 400) : null,
    at: d.ended_at,
    ...(c.families?.length
      ? {
          families: c.families.slice(0, 64).map((f) => ({
            family: f.family.slice(0, 200),
            instances: Math.max(0, f.instances),
            changePct: signed3(f.change_pct),
            judged: f.judged,
            slower: f.slower,
          })),
        }
      : {}),
  };
}

/** A duel's pairs as columns, with each side's PAR-2 contribution on the duel's basis. */
export function duelPairs(d: DuelDoc): DuelPairs {
  const code = (s: string) => RUN_STATUSES.indexOf(s as RunStatus);
  const times = d.pairs.map((p) => pairTimes(p, d.timeout_s, d.on));
  const col = (k: 'a' | 'b') => ({
    status: d.pairs.map((p) => code(p[k].status)),
    wall: d.pairs.map((p) => round3(p[k].time_s)),
    cpu: d.pairs.map((p) => (p[k].cpu_s === null ? null : round3(p[k].cpu_s))),
    par2: times.map((t) => round3(t[k === 'a' ? 0 : 1])),
  });
  return {
    session: d.session,
    on: d.on,
    timeoutS: d.timeout_s,
    instance: d.pairs.map((p) => p.instance),
    order: d.pairs.map((p) => p.order),
    a: col('a'),
    b: col('b'),
  };
}

/**
 * How a challenger's decision ended, from what is on disk: the cycle's state, the candidate's
 * evaluation, and the duel the decision was made on. `minImprovementPct` is the configured margin (the
 * duel keeps the band it was judged with); unknown (no config), only the band counts.
 */
function outcomeOf(
  id: number,
  s: CycleState | undefined,
  c: DashCandidate | undefined,
  e: ParsedEval | undefined,
  duel: DuelHead | undefined,
  minImprovementPct: number,
): DecisionOutcome {
  if (s?.champion_changed && s.candidate === id) return 'promoted';
  if (e?.verdict === 'fail' || (!e && c?.status === 'failed')) return 'failed';
  if (e?.race?.outcome === 'rejected early') return 'rejected early';
  if (e?.tier && e.tier.reached < e.tier.of) return 'stopped at a tier';
  if (!duel) return s?.step === 'done' ? (c?.status === 'failed' ? 'failed' : 'not compared') : 'pending';
  // A side that crashed or lied in the duel: the challenger cannot win, and a failing champion leaves nothing to compare.
  if (duel.fatal) return duel.fatal.side === 'B' ? 'failed' : 'not compared';
  const cmp = duel.comparison;
  if (cmp.verdict === 'A faster') return 'slower';
  if (cmp.verdict === 'no significant difference') return 'not significant';
  if (marginGainPct(cmp) < Math.max(minImprovementPct, cmp.band_pct)) return 'under the margin';
  return s?.step === 'done' ? 'vetoed' : 'pending';
}

/** Racing's evidence against a challenger it rejected early, else null. */
function raceOf(e: ParsedEval | undefined): DashRace | null {
  const r = e?.race;
  if (r?.outcome !== 'rejected early') return null;
  return {
    on: r.on,
    ran: r.ran,
    of: r.of,
    capped: r.capped,
    challengerS: round3(r.challenger_s),
    championS: round3(r.champion_s),
    championTotalS: round3(r.champion_total_s ?? r.champion_s),
    thresholdS: round3(r.threshold_s ?? 0),
    marginPct: round3(r.margin_pct ?? 0),
    bandPct: round3(r.band_pct ?? 0),
    ...(r.drop_below !== undefined ? { speedupPct: round3(r.speedup_pct ?? 0), passChance: r.pass_chance ?? null, dropBelow: r.drop_below } : {}),
    ...(r.detect_gain_pct !== undefined
      ? {
          detectGainPct: r.detect_gain_pct,
          speedupPct: round3(r.speedup_pct ?? 0),
          upperPct: r.upper_pct ?? null,
          odds: r.odds ?? null,
          ...(r.drop_odds !== undefined ? { dropOdds: r.drop_odds } : {}),
        }
      : {}),
    estimatedPar2: r.estimated_par2 === null ? null : round3(r.estimated_par2),
    spentS: round3(r.spent_s),
    reason: r.reason.slice(0, 600),
  };
}

/** A decision's outcome in plain sentences, from its duel (and the held-out check), racing or the tier it reached. */
export function decisionWhy(
  d: Omit<DashDecision, 'why'>,
  o: { alpha: number; minImprovementPct: number; failure: string | null; challenger: DashCandidate | undefined; champion: DashCandidate | undefined },
): string {
  const duelWhy = (x: DashDuel) =>
    explainComparison(
      {
        par2A: x.par2A,
        par2B: x.par2B,
        ci95: x.ci95,
        wilcoxon: { n: x.n, p: x.p },
        ...(x.level !== undefined ? { ratio: { p: x.p } } : {}),
        verdict: x.verdict,
        ...(x.again ? { again: x.again } : {}),
      },
      { alpha: x.level !== undefined ? 2 * x.level : o.alpha, marginPct: Math.max(o.minImprovementPct, x.bandPct) },
    );
  const a = o.champion?.perf;
  const b = o.challenger?.perf;
  const split = a && b ? explainSplit({ satA: a.par2Sat, satB: b.par2Sat, unsatA: a.par2Unsat, unsatB: b.par2Unsat }) : undefined;
  const withSplit = (t: string) => (split ? `${t} ${split}` : t);
  const why = decisionReason(d, o, duelWhy, withSplit);
  // A band this wide leaves almost no gain provable: say what would help, not only what happened.
  const band = Math.max(d.race?.bandPct ?? 0, d.duel?.bandPct ?? 0);
  return band >= NOISY_BAND_PCT
    ? `${why} The calibrated noise band is ${band.toFixed(0)}%: on instances this short the machine's noise is larger than most gains; instances that take longer would make decisions possible.`
    : why;
}

/** A noise band from which on a decision is mostly noise (percent). */
const NOISY_BAND_PCT = 50;

/** The reason part of decisionWhy, per outcome. */
function decisionReason(
  d: Omit<DashDecision, 'why'>,
  o: { failure: string | null },
  duelWhy: (x: DashDuel) => string,
  withSplit: (t: string) => string,
): string {
  switch (d.outcome) {
    case 'failed':
      return d.duel?.fatal
        ? `It failed in the side-by-side measurement: ${d.duel.fatal}.`
        : `It failed a gate${o.failure ? `: ${o.failure}` : ''}. A candidate that fails a gate is never compared.`;
    case 'rejected early':
      return d.race ? `Racing stopped it after ${d.race.ran} of ${d.race.of} instances: ${d.race.reason}.` : 'Racing stopped it early.';
    case 'stopped at a tier':
      return `It stopped at perf tier ${d.tier?.reached ?? '?'} of ${d.tier?.of ?? '?'}: it did not rank high enough on the cheaper tier to be measured on the whole set.`;
    case 'pending':
      return 'The decision is not made yet: the cycle is still running or was interrupted.';
    case 'not compared':
      return d.duel?.fatal
        ? `No verdict: ${d.duel.fatal}.`
        : 'It was not compared side by side with the champion (another proposal of the cycle measured faster, or the cycle ended before its duel).';
    case 'vetoed': {
      const specialist = d.duel?.families?.filter((f) => f.slower) ?? [];
      const heldSlower = d.heldOut?.families?.filter((f) => f.slower) ?? [];
      const fams = (fs: typeof specialist) =>
        fs.map((f) => `${f.family} (${f.changePct > 0 ? '+' : ''}${f.changePct.toFixed(1)}%, ${f.instances} instances)`).join(', ');
      const held = specialist.length
        ? ` It was not promoted: slower beyond the tolerance on ${fams(specialist)} (the family rule: no family pays for a promotion).`
        : d.heldOut
          ? ` On the held-out set, side by side: PAR-2 ${d.heldOut.par2A.toFixed(2)} -> ${d.heldOut.par2B.toFixed(2)} s (${d.heldOut.verdict})${heldSlower.length ? `, slower beyond the tolerance on ${fams(heldSlower)}` : ''}, so it was not promoted.`
          : ' It was not promoted: a person or another proposal of the cycle decided otherwise.';
      return d.duel ? withSplit(`${duelWhy(d.duel)}${held}`) : held.trim();
    }
    case 'promoted':
      return d.duel
        ? withSplit(
            `${duelWhy(d.duel)}${d.heldOut ? ` Not slower on the held-out set (PAR-2 ${d.heldOut.par2A.toFixed(2)} -> ${d.heldOut.par2B.toFixed(2)} s).` : ''} Promoted.`,
          )
        : 'Promoted.';
    default:
      return d.duel ? withSplit(duelWhy(d.duel)) : 'No side-by-side measurement was kept for it.';
  }
}

/** Everything the Verdicts view shows but the pairs. */
export function verdictsData(o: {
  config: Config | undefined;
  cal: CalibrationDoc | undefined;
  /** Whether this machine measures CPU time (run/measurement.ts). */
  cpuHere?: boolean;
  cycles: readonly CycleState[];
  duels: readonly DuelHead[];
  candidates: ReadonlyMap<number, DashCandidate>;
  evals: ReadonlyMap<number, ParsedEval>;
  note: (m: string) => void;
}): VerdictsData {
  const { cal } = o;
  // The latest duel of each purpose per (cycle, challenger): a resumed cycle finds the one it measured (decide/againstChampion.ts).
  const kept = new Map<string, { decision?: DuelHead; heldOut?: DuelHead }>();
  const key = (cycle: number, id: number) => `${cycle}:${id}`;
  for (const d of [...o.duels].sort((x, y) => x.started_at.localeCompare(y.started_at))) {
    if (d.cycle === null || d.cycle < 1 || (d.purpose !== 'decision' && d.purpose !== 'held-out')) continue;
    const id = candidateOf(d.b.dir);
    if (id === undefined) continue;
    const k = key(d.cycle, id);
    kept.set(k, { ...kept.get(k), [d.purpose === 'decision' ? 'decision' : 'heldOut']: d });
  }
  const states = new Map(o.cycles.map((s) => [s.cycle, s]));
  const rows: { cycle: number; id: number }[] = [];
  const seen = new Set<string>();
  const add = (cycle: number, id: number) => {
    if (seen.has(key(cycle, id))) return;
    seen.add(key(cycle, id));
    rows.push({ cycle, id });
  };
  for (const s of o.cycles) {
    for (const id of s.selected ?? []) add(s.cycle, id);
    if (s.candidate !== null) add(s.cycle, s.candidate);
  }
  // Duels of cycles the log lost (a torn cycles.jsonl) are still decisions.
  for (const k of kept.keys()) {
    const [cycle, id] = k.split(':').map(Number) as [number, number];
    add(cycle, id);
  }
  rows.sort((x, y) => x.cycle - y.cycle || x.id - y.id);
  if (rows.length > MAX_DECISIONS) o.note(`verdicts: the ${MAX_DECISIONS} latest of ${rows.length} decisions are shown`);
  const minImprovement = o.config?.strategy.min_improvement_pct ?? 0;
  const chain: FamilyDuel[] = o.duels.flatMap((d) => {
    const a = candidateOf(d.a.dir);
    const b = candidateOf(d.b.dir);
    return d.purpose === 'decision' && a !== undefined && b !== undefined && d.comparison.families?.length
      ? [{ a, b, set: d.set, at: d.ended_at, families: d.comparison.families }]
      : [];
  });
  const decisions: DashDecision[] = rows.slice(-MAX_DECISIONS).map(({ cycle, id }) => {
    const s = states.get(cycle);
    const e = o.evals.get(id);
    const k = kept.get(key(cycle, id));
    const duel = k?.decision;
    const champion = (duel && candidateOf(duel.a.dir)) ?? s?.parent ?? null;
    const d = {
      cycle,
      candidate: id,
      champion,
      outcome: outcomeOf(id, s, o.candidates.get(id), e, duel, minImprovement),
      duel: duel ? dashDuel(duel, 'decision') : null,
      heldOut: k?.heldOut ? dashDuel(k.heldOut, 'held-out') : null,
      race: raceOf(e),
      tier: e?.tier && e.tier.reached < e.tier.of ? e.tier : null,
    };
    const parent = o.candidates.get(id)?.parent ?? null;
    const againstParent = parent !== null && parent !== champion ? familiesAgainstParent(id, parent, chain) : undefined;
    const why = decisionWhy(d, {
      alpha: o.config?.strategy.alpha ?? 0.05,
      minImprovementPct: minImprovement,
      failure: e?.failure ?? o.candidates.get(id)?.failure ?? null,
      challenger: o.candidates.get(id),
      champion: champion === null ? undefined : o.candidates.get(champion),
    });
    return {
      ...d,
      ...(againstParent
        ? {
            parent: {
              id: againstParent.parent,
              via: againstParent.via,
              families: againstParent.families
                .slice(0, 64)
                .map((f) => ({ family: f.family.slice(0, 200), instances: f.instances, changePct: signed3(f.changePct) })),
            },
          }
        : {}),
      why: why.slice(0, 1200),
    };
  });
  return {
    rule: o.config ? ruleInForce(o.config, cal, o.cpuHere) : null,
    noise: cal ? [...(cal.cpu ? [noiseRow('cpu', cal.cpu)] : []), noiseRow('wall', cal.wall)] : [],
    calibration: cal ? { at: cal.at, n: cal.n, machine: cal.scope.machine, solver: cal.solver, runner: cal.scope.runner, timeoutS: cal.scope.timeout_s } : null,
    decisions,
  };
}

/** The duels of a workspace, each file's head parsed once while its size and mtime stay the same (a kept duel never changes). */
export class DuelFiles {
  private readonly cache = new Map<string, { key: string; head: DuelHead | undefined }>();

  /** Every readable duel's head, with its file; files that are not duels are skipped with a note. */
  async read(ws: string, note: (m: string) => void): Promise<{ head: DuelHead; file: string }[]> {
    const dir = duelsDir(ws);
    const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
    const out: { head: DuelHead; file: string }[] = [];
    const live = new Set<string>();
    let bad = 0;
    for (const n of names) {
      const file = path.join(dir, n);
      live.add(file);
      const st = await fs.stat(file).catch(() => undefined);
      if (!st?.isFile()) continue;
      const k = `${st.size}:${st.mtimeMs}`;
      let hit = this.cache.get(file);
      if (hit?.key !== k) {
        // The pairs are checked to be a list only: validating every pair of every duel is for the one a person opens.
        const raw = await readJson(file);
        const p = DuelHead.safeParse(raw);
        const pairs = typeof raw === 'object' && raw !== null && Array.isArray((raw as { pairs?: unknown }).pairs);
        hit = { key: k, head: p.success && pairs && SessionId.safeParse(p.data.session).success ? p.data : undefined };
        this.cache.set(file, hit);
      }
      if (hit.head) out.push({ head: hit.head, file });
      else bad++;
    }
    for (const f of this.cache.keys()) if (!live.has(f)) this.cache.delete(f);
    if (bad) note(`duels: ${bad} file${bad > 1 ? 's' : ''} that ${bad > 1 ? 'are' : 'is'} not a duel skipped`);
    return out;
  }

  /** A duel's pairs, read and validated in full now; undefined when the file is gone or damaged. */
  async pairs(file: string): Promise<DuelPairs | undefined> {
    const p = DuelDoc.safeParse(await readJson(file));
    return p.success ? duelPairs(p.data) : undefined;
  }
}

/** A file's JSON, or undefined when it cannot be read or parsed. */
const readJson = (file: string): Promise<unknown> =>
  fs
    .readFile(file, 'utf8')
    .then((t) => JSON.parse(t) as unknown)
    .catch(() => undefined);
