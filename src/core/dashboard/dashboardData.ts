// Builds the dashboard's data from a workspace's disk state: every candidate's latest evaluation, the
// cycle log, champion changes, the usage ledger (paper Figs. 2-8), and the verdicts (the calibration and
// the duels, verdictsView.ts). Parsed evaluations and duels are cached by file size and mtime, so a refresh
// after one new evaluation reads one file.
import { cpuMeasuredHere } from '../run/measurement';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { hasCandidateDoc } from '../workspace/candidateFs';
import type { CycleState } from '../store/cycleState';
import type { InstanceResult } from '../run/result';
import { CandidateStore, type CandidateRecord } from '../store/candidates';
import { PENALTIES, readIslandDb } from '../strategy/islandDb';
import { judgeStats } from '../strategy/judgeLog';
import { objectivesDir, scorePortfolio } from '../objectives/portfolio';
import { readTiers, type TierRecord } from '../eval/tiers';
import { DEFAULT_ISLANDS, DEFAULT_SMC, type Config, type IslandsConfig, type SmcConfig, type Tier } from '../config/schema';
import { parseConfig } from '../config/load';
import { calibrationFile, readCalibration } from '../decide/calibration';
import { forecast, readSmc } from '../strategy/smcState';
import { CONFIG_FILE, parseCandidateDir, STATE_DIR } from '../layout';
import { EVALS_DIR, EvalStore } from '../eval/evalStore';
import {
  readChampionEvents,
  readCycles,
  readEvalLeniently,
  readUsage,
  type ChampionEvent,
  type ParsedEval,
  type PromotionCheck,
  type ReadResult,
} from './read';
import {
  ANSWERS,
  DashGate,
  PROOF_STATES,
  GATE_ORDER,
  RUN_STATUSES,
  type CandidateColumns,
  type CostRow,
  type DashboardData,
  type DashCandidate,
  type DashCycle,
  type ConsensusData,
  type DuelPairs,
  type IslandsData,
  type SmcData,
  type TiersData,
} from './dashboardSchema';
import { DuelFiles, verdictsData } from './verdictsView';

/** The candidates as the caller knows them (the extension passes its snapshot; else the store is read). */
export interface DashboardInput {
  champion: number | null;
  candidates: readonly (Pick<CandidateRecord, 'id' | 'dir' | 'parent' | 'status' | 'detail'> & { seed?: string | undefined; docs?: readonly string[] })[];
  /** From satlution.yaml, when the caller has it. */
  strategy?: DashboardData['strategy'];
  /** The islands settings (default: the strategy's defaults). */
  islands?: IslandsConfig;
  smc?: SmcConfig;
  /** stages.perf.tiers, for the tiers' settings (else they are read off the records). */
  tiers?: readonly Tier[];
  /** The valid satlution.yaml, for the promotion rule in force (absent: the rule is not shown). */
  config?: Config;
}

async function tiersData(ws: string, cfg: readonly Tier[] | undefined): Promise<TiersData | null> {
  const recs = await readTiers(ws);
  if (!recs.length) return null;
  const byTier = new Map<number, TierRecord[]>();
  for (const r of recs) byTier.set(r.tier, [...(byTier.get(r.tier) ?? []), r]);
  const tiers = [...byTier.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([tier, rs]) => {
      const latest = new Map(rs.map((r) => [r.candidate, r]));
      const c = cfg?.[tier - 1];
      return {
        tier,
        fraction: c?.fraction ?? rs[rs.length - 1]!.fraction,
        timeoutS: c?.timeout_s ?? rs[rs.length - 1]!.timeout_s,
        promoteTop: c?.promote_top ?? null,
        measured: latest.size,
        promoted: [...latest.values()].filter((r) => r.promoted).length,
      };
    });
  return { tiers, recent: recs.slice(-30).map((r) => ({ candidate: r.candidate, tier: r.tier, par2: r.par2, rank: r.rank, of: r.of, promoted: r.promoted })) };
}

async function smcData(ws: string, cfg: SmcConfig = DEFAULT_SMC): Promise<SmcData | null> {
  const s = await readSmc(ws);
  if (!s) return null;
  return {
    run: s.run,
    iteration: s.iteration,
    lambda: s.lambda,
    betaT: s.lambda * cfg.beta,
    particles: (s.chains.length ? s.chains.map((c) => c.state) : s.particles).map((p) => ({ candidate: p.candidate, reward: p.reward })),
    kernels: Object.entries(s.kernels).map(([name, k]) => ({ name, mean: k.a / (k.a + k.b), a: k.a, b: k.b })),
    forecast: forecast(s, cfg),
    accepted: s.accepted,
    moves: s.moves,
    history: s.history.slice(-60).map((h) => ({ run: h.run, iteration: h.iteration, lambda: h.lambda, ess: h.ess, best: h.best })),
    ended: s.ended.slice(-20),
  };
}

/** The islands' database as the dashboard shows it, or null when there is none. */
async function islandsData(ws: string, cfg: IslandsConfig = DEFAULT_ISLANDS): Promise<IslandsData | null> {
  const db = await readIslandDb(ws, cfg);
  if (!db.byCandidate.size) return null;
  return {
    bins: cfg.bins,
    islands: db.islands.map((i) => ({
      index: i.index,
      members: i.members,
      cells: [...i.cells.entries()].map(([k, m]) => ({ x: Number(k.split(',')[0]), y: Number(k.split(',')[1]), candidate: m.candidate, par2: m.par2! })),
      best: i.best ? { candidate: i.best.candidate, par2: i.best.par2! } : null,
    })),
    archive: db.archive.map((m) => ({ candidate: m.candidate, par2: m.par2! })),
    penalties: PENALTIES.map((kind) => ({ kind, count: db.penalties[kind] })),
    migrations: db.migrations,
  };
}

export interface DashboardBuild {
  data: DashboardData;
  /** Per-instance perf columns of these candidates (unknown ids and ids without results are left out). */
  columns(ids: readonly number[]): CandidateColumns[];
  /** A candidate's latest evaluation, as read for this build. */
  evaluation(id: number): ParsedEval | undefined;
  /** The pairs of a decision's duel, by session, read when asked for (undefined: no such duel in this build, or its file is gone). */
  pairs(session: string): Promise<DuelPairs | undefined>;
}

const MAX_NOTES = 40;

/** Builds are numbered across sources, so columns of one workspace never pass for another's. */
let builds = 0;

export class DashboardSource {
  private readonly cache = new Map<string, { key: string; read: ReadResult<ParsedEval> }>();

  private consensusCache: { key: string; data: ConsensusData | null } | undefined;

  private readonly duelFiles = new DuelFiles();

  private readonly evals: EvalStore;

  constructor(readonly ws: string) {
    this.evals = new EvalStore(ws);
  }

  /** The portfolio's scores: objectives run in sandboxed processes, so only when the portfolio or an evaluation changed. */
  private async consensusData(): Promise<ConsensusData | null> {
    const stamp = async (f: string) => (await fs.stat(f).catch(() => null))?.mtimeMs ?? 0;
    const idx = path.join(objectivesDir(this.ws), 'index.json');
    if (!(await stamp(idx))) return null;
    const evals = path.join(this.ws, EVALS_DIR);
    const key = [
      await stamp(idx),
      await stamp(evals),
      ...(await Promise.all((await fs.readdir(evals).catch(() => [] as string[])).map((f) => stamp(path.join(evals, f))))),
    ].join(',');
    if (this.consensusCache?.key === key) return this.consensusCache.data;
    const v = await scorePortfolio(this.ws);
    const data: ConsensusData = {
      round: v.round,
      objectives: v.objectives.map((o) => ({
        name: o.name,
        author: o.author,
        rationale: o.rationale,
        weight: o.weight,
        tau: o.tau,
        createdRound: o.created_round,
        multiplier: o.multiplier,
        error: o.error,
      })),
      candidates: v.candidates.map((c) => ({ candidate: c.candidate, score: c.score })),
    };
    this.consensusCache = { key, data };
    return data;
  }

  async build(input?: DashboardInput): Promise<DashboardBuild> {
    const state = path.join(this.ws, STATE_DIR);
    const notes: string[] = [];
    const note = (m: string) => void (notes.length < MAX_NOTES && notes.push(m));
    const given = input ?? (await this.readStore(note));
    const list = [...given.candidates].filter((c) => parseCandidateDir(c.dir) === c.id).sort((a, b) => a.id - b.id);

    const evals = new Map<number, ParsedEval>();
    for (const c of list) {
      const r = await this.readEval(c.dir);
      if (!r) continue;
      if (!r.ok) note(`evals/${c.dir}.json: ${r.reason}; skipped`);
      else {
        evals.set(c.id, r.value);
        if (r.value.badInstances) note(`evals/${c.dir}.json: ${r.value.badInstances} malformed instance result${r.value.badInstances > 1 ? 's' : ''} left out`);
      }
    }
    const known = new Set(list.map((c) => c.dir));
    for (const dir of await this.evals.candidates()) if (!known.has(dir)) note(`evals/${dir}.json: no such candidate in the store; skipped`);

    // The instance universe: every perf instance of any candidate, in the order first seen.
    const index = new Map<string, number>();
    const names: string[] = [];
    const famOf: (string | null)[] = [];
    const expOf: InstanceResult['expected'][] = [];
    for (const c of list)
      for (const r of evals.get(c.id)?.perfResults ?? []) {
        const i = index.get(r.instance);
        if (i === undefined) {
          index.set(r.instance, names.length);
          names.push(r.instance);
          famOf.push(r.family);
          expOf.push(r.expected);
        } else {
          famOf[i] ??= r.family;
          expOf[i] ??= r.expected;
        }
      }
    const families = [...new Set(famOf.filter((f): f is string => f !== null))].sort();
    const famIndex = new Map(families.map((f, i) => [f, i]));

    const cycles = await readCycles(path.join(state, 'cycles.jsonl'), path.join(state, 'cycle.json'), note);
    const cycleOf = new Map<number, number>();
    for (const s of cycles) if (s.candidate !== null) cycleOf.set(s.candidate, s.cycle);

    const candidates: DashCandidate[] = list.map((c) => {
      const e = evals.get(c.id);
      const fromDetail = !e && c.status === 'failed' ? /failed the (\w+) gate: ?(.*)/s.exec(c.detail ?? '') : null;
      const gate = fromDetail ? DashGate.safeParse(fromDetail[1]) : undefined;
      return {
        id: c.id,
        dir: c.dir,
        parent: c.parent,
        seed: c.seed ?? null,
        status: c.status,
        champion: given.champion === c.id,
        cycle: cycleOf.get(c.id) ?? null,
        verdict: e?.verdict ?? null,
        failedGate: e ? e.failedGate : gate?.success ? gate.data : null,
        failure: e ? e.failure : fromDetail ? fromDetail[2]!.slice(0, 400) : null,
        warnings: e?.warnings ?? [],
        evaluatedAt: e?.evaluatedAt ?? null,
        timeoutS: e?.perf ? e.timeoutS : null,
        perf: e?.perf ?? null,
        hasDetail: (e?.perfResults.length ?? 0) > 0,
        partial: e?.race?.outcome === 'rejected early' ? 'rejected early' : e?.tier && e.tier.reached < e.tier.of ? 'stopped at a tier' : null,
        hasResults: c.docs?.includes('RESULTS.md') ?? false,
      };
    });

    const byId = new Map(candidates.map((c) => [c.id, c]));
    const stats = await judgeStats(this.ws).catch(() => undefined);
    const judge = stats?.points.length ? { points: stats.points, n: stats.n, pearson: stats.pearson, spearman: stats.spearman } : null;
    const islands = await islandsData(this.ws, given.islands).catch(() => null);
    const smc = await smcData(this.ws, given.smc).catch(() => null);
    const tiers = await tiersData(this.ws, given.tiers).catch(() => null);
    const consensus = await this.consensusData().catch(() => null);
    const events = await readChampionEvents(path.join(state, 'candidates.jsonl'), note);
    const duels = await this.duelFiles.read(this.ws, note);
    const cal = await readCalibration(this.ws).catch(() => undefined);
    if (
      !cal &&
      (await fs.stat(calibrationFile(this.ws)).then(
        () => true,
        () => false,
      ))
    )
      note('calibration.json is not a calibration; shown as not calibrated');
    const verdicts = verdictsData({
      config: given.config,
      cal,
      cpuHere: await cpuMeasuredHere(),
      cycles,
      duels: duels.map((d) => d.head),
      candidates: byId,
      evals,
      note,
    });
    // Only the duels this build's decisions show can be asked for: another duel's pairs are nobody's business here.
    const shown = new Set(verdicts.decisions.flatMap((x) => [x.duel?.session, x.heldOut?.session]));
    const fileOf = new Map(duels.filter((d) => shown.has(d.head.session)).map((d) => [d.head.session, d.file]));
    const data: DashboardData = {
      version: ++builds,
      workspace: path.basename(this.ws),
      builtAt: new Date().toISOString(),
      champion: given.champion,
      candidates,
      cycles: cycleRows(cycles, events, given.champion, byId, (id) => evals.get(id)?.race?.estimated_par2 ?? null),
      instances: {
        name: names,
        family: famOf.map((f) => (f === null ? -1 : famIndex.get(f)!)),
        expected: expOf.map((x) => (x === 'SAT' ? 1 : x === 'UNSAT' ? 2 : 0)),
      },
      families,
      failures: failuresByGate(candidates),
      cost: costRows(await readUsage(path.join(state, 'usage.jsonl'), note)),
      strategy: given.strategy ?? (smc ? 'smc' : islands ? 'islands' : judge ? 'sift' : null),
      judge,
      islands,
      smc,
      tiers,
      consensus,
      verdicts,
      notes,
    };
    return {
      data,
      columns: (ids) =>
        [...new Set(ids)].flatMap((id) => {
          const e = evals.get(id);
          return e?.perfResults.length ? [columnsOf(id, e.perfResults, index, names.length, e.promotionChecks)] : [];
        }),
      evaluation: (id) => evals.get(id),
      pairs: async (session) => {
        const file = fileOf.get(session);
        return file ? this.duelFiles.pairs(file) : undefined;
      },
    };
  }

  /** Reads one evaluation, from the cache when the file is unchanged; undefined when there is none. */
  private async readEval(candidate: string): Promise<ReadResult<ParsedEval> | undefined> {
    const file = this.evals.file(candidate);
    const st = await fs.stat(file).catch(() => undefined);
    if (!st) {
      this.cache.delete(file);
      return undefined;
    }
    const key = `${st.size}:${st.mtimeMs}`;
    const hit = this.cache.get(file);
    if (hit?.key === key) return hit.read;
    const read = await readEvalLeniently(this.evals, candidate);
    this.cache.set(file, { key, read });
    return read;
  }

  private async readStore(note: (m: string) => void): Promise<DashboardInput> {
    try {
      const index = await new CandidateStore(this.ws).list();
      const docs = async (dir: string) => ((await hasCandidateDoc(path.join(this.ws, dir), 'RESULTS.md')) ? ['RESULTS.md'] : []);
      const config = await this.readConfig(note);
      return {
        champion: index.champion,
        candidates: await Promise.all(index.candidates.map(async (c) => ({ ...c, docs: await docs(c.dir) }))),
        ...(config ? { config } : {}),
      };
    } catch (e) {
      note(`the candidate store could not be read: ${(e as Error).message}`);
      return { champion: null, candidates: [] };
    }
  }

  /** satlution.yaml when it is valid; a folder without one is no workspace, and is not worth a note. */
  private async readConfig(note: (m: string) => void): Promise<Config | undefined> {
    const text = await fs.readFile(path.join(this.ws, CONFIG_FILE), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const r = parseConfig(text);
    if (!r.ok) note(`${CONFIG_FILE} is not valid: the promotion rule in force is not shown`);
    return r.ok ? r.config : undefined;
  }
}

/** One build from a fresh source (the CLI, tests). */
export async function buildDashboard(ws: string, input?: DashboardInput): Promise<DashboardBuild> {
  return new DashboardSource(ws).build(input);
}

/** The champion after each cycle: from the store's champion events when it has them, else replayed from the cycles. */
function cycleRows(
  cycles: CycleState[],
  events: ChampionEvent[],
  current: number | null,
  byId: Map<number, DashCandidate>,
  estimate: (id: number) => number | null,
): DashCycle[] {
  let replay = cycles[0]?.parent ?? current;
  const par2 = (id: number | null) => (id === null ? null : (byId.get(id)?.perf?.par2 ?? null));
  return cycles.map((s) => {
    const ended = Date.parse(s.updated_at);
    let champion: number | null;
    if (events.length && Number.isFinite(ended)) {
      champion = null;
      for (const e of events) if (e.at <= ended) champion = e.id;
    } else {
      if (s.champion_changed && s.candidate !== null) replay = s.candidate;
      champion = replay;
    }
    const cand = s.candidate === null ? undefined : byId.get(s.candidate);
    return {
      cycle: s.cycle,
      parent: s.parent,
      candidate: s.candidate,
      title: s.title,
      step: s.step,
      championChanged: s.champion_changed,
      outcome: s.outcome,
      champion,
      championPar2: par2(champion),
      // A failed candidate's PAR-2 is not a result (a wrong answer is never just a slow run), nor is one of part of the set.
      candidatePar2: cand?.verdict === 'pass' && !cand.partial ? (cand.perf?.par2 ?? null) : null,
      candidatePartial: cand?.partial ?? null,
      candidateEstimate: cand?.verdict === 'pass' && cand.partial === 'rejected early' && s.candidate !== null ? estimate(s.candidate) : null,
      endedAt: s.updated_at,
    };
  });
}

function failuresByGate(candidates: DashCandidate[]): DashboardData['failures'] {
  const counts = new Map<string, number>();
  for (const c of candidates)
    if (c.failedGate && (c.verdict === 'fail' || (c.verdict === null && c.status === 'failed'))) counts.set(c.failedGate, (counts.get(c.failedGate) ?? 0) + 1);
  return GATE_ORDER.map((gate) => ({ gate, count: counts.get(gate) ?? 0 }));
}

function costRows(lines: Awaited<ReturnType<typeof readUsage>>): CostRow[] {
  const rows = new Map<number | null, CostRow>();
  for (const l of lines) {
    const r = rows.get(l.cycle) ?? { cycle: l.cycle, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
    r.calls++;
    r.input += Math.round(l.usage.input);
    r.output += Math.round(l.usage.output);
    r.cacheRead += Math.round(l.usage.cacheRead);
    r.cacheWrite += Math.round(l.usage.cacheWrite);
    r.usd += l.usd;
    rows.set(l.cycle, r);
  }
  // Cycles in order; spending outside any cycle last.
  return [...rows.values()].sort((a, b) => (a.cycle ?? Infinity) - (b.cycle ?? Infinity));
}

/** A candidate's per-instance columns; `checked`: the promotion audit's verdicts, which its results do not carry. */
function columnsOf(
  id: number,
  results: InstanceResult[],
  index: Map<string, number>,
  n: number,
  checked: ReadonlyMap<string, PromotionCheck>,
): CandidateColumns {
  const status = new Array<number>(n).fill(-1);
  const time = new Array<number>(n).fill(0);
  const cpu = new Array<number | null>(n).fill(null);
  const answer = new Array<number>(n).fill(0);
  const proof = new Array<number>(n).fill(0);
  for (const r of results) {
    const i = index.get(r.instance);
    if (i === undefined) continue;
    status[i] = RUN_STATUSES.indexOf(r.status);
    time[i] = Number.isFinite(r.time_s) ? Math.max(0, Math.round(r.time_s * 1000) / 1000) : 0;
    cpu[i] = r.cpu_s !== null && Number.isFinite(r.cpu_s) ? Math.max(0, Math.round(r.cpu_s * 1000) / 1000) : null;
    answer[i] = Math.max(0, ANSWERS.indexOf(r.answer));
    proof[i] = Math.max(0, PROOF_STATES.indexOf(r.answer === 'UNSAT' ? (checked.get(r.instance) ?? proofState(r)) : null));
  }
  return { id, status, time, cpu, answer, proof };
}

/** What an UNSAT answer's proof showed (PROOF_STATES) as its result carries it; null for any other result. */
export function proofState(r: InstanceResult): (typeof PROOF_STATES)[number] {
  if (r.answer !== 'UNSAT') return null;
  if (r.status === 'solved') return r.check.ok === true ? 'proved' : 'unchecked';
  if (r.status === 'invalid_proof') return 'rejected';
  return r.status === 'unknown' && r.check.kind === 'drat' && r.check.ok === null ? 'unproved' : null;
}
