// The islands strategy's program database: MAP-Elites grids on several islands (OpenEvolve's design, sized
// for evaluations that take hours: 5 islands, population 70, archive 25). Each candidate lands in a
// cell of its island's grid by two SAT-relevant features — the SAT share of its PAR-2 (does it win
// on SAT or on UNSAT instances?) and its code size against the seed — and a cell keeps its fastest
// candidate. Cycles visit the islands in turn and start from the island's best or a random elite;
// every few cycles each island's best migrates to the next. A proposal whose sources equal an earlier
// candidate's (up to comments and whitespace) or whose binaries do is rejected before evaluation.
// Failures stay in the record with ThetaEvolve's graded penalty, for the dashboard and the export.
// (The strategy object that drives it is in islands.ts.)
//
// The database is an append-only log, `.satlution/islands.jsonl`, from which everything is derived:
// a crash loses nothing and nothing needs repair.
import type { IsolationSettings } from '../isolation/settings';
import * as path from 'node:path';
import { z } from 'zod';
import { prng } from '../stats/prng';
import type { IslandsConfig } from '../config/schema';
import { rankingPar2, type EvalDoc } from '../eval/evalDoc';
import { buildSolver } from '../run/buildSolver';
import { hashSolver } from '../eval/resultsStore';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { candidateDirName, STATE_DIR } from '../layout';
import { sourceFacts } from './sourceHash';

/** Worst to least bad, as ThetaEvolve grades its early checks. */
export const PENALTIES = ['no patch', 'no change', 'build or crash', 'wrong answer or bad proof'] as const;
/** A failure's grade. */
export type Penalty = (typeof PENALTIES)[number];
/** The graded penalty as a score (ThetaEvolve's values). */
export const PENALTY_SCORE: Record<Penalty, number> = { 'no patch': -0.4, 'no change': -0.3, 'build or crash': -0.2, 'wrong answer or bad proof': -0.1 };

const Event = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('member'),
    at: z.string(),
    cycle: z.number().int().nonnegative(),
    candidate: z.number().int().nonnegative(),
    island: z.number().int().nonnegative(),
    /** PAR-2 on the perf set; null for a failure. */
    par2: z.number().nonnegative().nullable(),
    /** SAT PAR-2 / (SAT PAR-2 + UNSAT PAR-2); null when a side has no instances. */
    sat_share: z.number().min(0).max(1).nullable(),
    lines: z.number().int().nonnegative(),
    penalty: z.enum(PENALTIES).nullable(),
    /** Normalized-source hash and binary hash, for duplicate detection. */
    source_hash: z.string(),
    binary_hash: z.string().nullable(),
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal('migrate'),
    at: z.string(),
    cycle: z.number().int().nonnegative(),
    candidate: z.number().int().nonnegative(),
    from: z.number().int().nonnegative(),
    island: z.number().int().nonnegative(),
  }),
]);
type Event = z.infer<typeof Event>;
/** A candidate's record in the database. */
export type MemberEvent = Extract<Event, { type: 'member' }>;

/** The database's log file in a workspace. */
export const islandsFile = (ws: string) => path.join(ws, STATE_DIR, 'islands.jsonl');

/** One island: its grid of cells and its best member. */
export interface Island {
  index: number;
  /** Occupied cells: "x,y" -> the fastest member there. */
  cells: Map<string, MemberEvent>;
  best: MemberEvent | null;
  members: number;
}

/** The database as derived from its log. */
export interface IslandDb {
  config: IslandsConfig;
  islands: Island[];
  /** The best members overall (passing, distinct candidates). */
  archive: MemberEvent[];
  /** The last record of every candidate (its own island's). */
  byCandidate: Map<number, MemberEvent>;
  penalties: Record<Penalty, number>;
  migrations: number;
  /** Source lines of the first member (the seed): the code-size axis is relative to it. */
  seedLines: number | null;
}

/** A member's cell on the grid: SAT share of PAR-2 by code size against the seed, each in `bins` bins. */
export function cellOf(m: Pick<MemberEvent, 'sat_share' | 'lines'>, seedLines: number | null, bins: number): [number, number] {
  const bin = (x: number) => Math.min(bins - 1, Math.max(0, Math.floor(x * bins)));
  const x = bin(m.sat_share ?? 0.5);
  // Code size: ln(lines / seed lines) over ln(0.8)..ln(1.25), so the seed sits in the middle.
  const r = seedLines && m.lines ? Math.log(m.lines / seedLines) : 0;
  const y = bin((r - Math.log(0.8)) / (Math.log(1.25) - Math.log(0.8)));
  return [x, y];
}

/** The database derived from its log, with `config`'s population cap and grid. */
export async function readIslandDb(ws: string, config: IslandsConfig): Promise<IslandDb> {
  const { records } = await readJsonLines(islandsFile(ws));
  const events = records.flatMap((r) => {
    const p = Event.safeParse(r);
    return p.success ? [p.data] : [];
  });
  const byCandidate = new Map<number, MemberEvent>();
  // Membership: candidate -> islands (its own, and where it migrated).
  const where = new Map<number, Set<number>>();
  let seedLines: number | null = null;
  let migrations = 0;
  for (const e of events) {
    if (e.type === 'member') {
      seedLines ??= e.lines || null;
      byCandidate.set(e.candidate, e);
    } else migrations++;
    if (e.island < config.count) where.set(e.candidate, (where.get(e.candidate) ?? new Set()).add(e.island));
  }
  const penalties = Object.fromEntries(PENALTIES.map((p) => [p, 0])) as Record<Penalty, number>;
  for (const m of byCandidate.values()) if (m.penalty) penalties[m.penalty]++;
  const passing = [...byCandidate.values()].filter((m) => m.par2 !== null).sort((a, b) => a.par2! - b.par2! || a.candidate - b.candidate);
  // The population cap: only the best `population` members stay in the grids.
  const kept = passing.slice(0, config.population);
  const islands: Island[] = Array.from({ length: config.count }, (_, index) => ({ index, cells: new Map(), best: null, members: 0 }));
  for (const m of kept)
    for (const i of where.get(m.candidate) ?? []) {
      const island = islands[i]!;
      island.members++;
      const key = cellOf(m, seedLines, config.bins).join(',');
      const cur = island.cells.get(key);
      if (!cur || m.par2! < cur.par2!) island.cells.set(key, m);
      if (!island.best || m.par2! < island.best.par2!) island.best = m;
    }
  return { config, islands, archive: passing.slice(0, config.archive), byCandidate, penalties, migrations, seedLines };
}

const append = (ws: string, e: Omit<MemberEvent, 'at' | 'type'> | Omit<Extract<Event, { type: 'migrate' }>, 'at' | 'type'>, type: Event['type']) =>
  appendJsonLine(islandsFile(ws), { type, at: new Date().toISOString(), ...e });

/** A candidate's record: its features from its evaluation and sources, or a penalty. */
export async function recordMember(
  ws: string,
  o: { cycle: number; island: number; candidate: number; json?: EvalDoc; penalty?: Penalty; detail?: string },
): Promise<void> {
  const dir = path.join(ws, candidateDirName(o.candidate));
  const facts = await sourceFacts(dir);
  const m = o.json?.metrics;
  const pass = o.json?.verdict === 'pass' && m;
  const failedGate = o.json?.verdict === 'fail' ? o.json.gates.find((g) => !g.ok)?.gate : undefined;
  const penalty: Penalty | null =
    o.penalty ??
    (pass ? null : failedGate === 'verify' || failedGate === 'perf' ? 'wrong answer or bad proof' : failedGate === 'comply' ? 'no change' : 'build or crash');
  const share = pass && m.par2_sat !== null && m.par2_unsat !== null && m.par2_sat + m.par2_unsat > 0 ? m.par2_sat / (m.par2_sat + m.par2_unsat) : null;
  await append(
    ws,
    {
      cycle: o.cycle,
      candidate: o.candidate,
      island: o.island,
      par2: pass ? rankingPar2(o.json) : null,
      sat_share: share,
      lines: facts.lines,
      penalty,
      source_hash: facts.hash,
      // Only an evaluated candidate's binaries count: an unevaluated one's bin/ may be its parent's build.
      // (The evaluation's solver_hash covers the whole directory; duplicates compare the binaries alone.)
      binary_hash: o.json?.solver_hash ? await hashSolver(path.join(ws, candidateDirName(o.candidate))).catch(() => null) : null,
      ...(o.detail ? { detail: o.detail } : {}),
    },
    'member',
  );
}

/** The earlier candidate (lower number) a proposal duplicates (same normalized sources, or same binaries), if any. */
export async function duplicateOf(
  ws: string,
  db: IslandDb,
  candidate: number,
  build?: { timeoutS: number; isolation: IsolationSettings; signal?: AbortSignal },
): Promise<{ of: number; how: string } | undefined> {
  const dir = path.join(ws, candidateDirName(candidate));
  const facts = await sourceFacts(dir);
  // Binaries count only when built from these sources now: bin/ may still hold the parent's build.
  // A failed build is left to the build gate to report.
  const built = build ? (await buildSolver(dir, build.timeoutS, build.signal, build.isolation)).ok : false;
  const bin = built ? await hashSolver(dir).catch(() => null) : null;
  for (const m of db.byCandidate.values()) {
    if (m.candidate >= candidate) continue; // earlier candidates only
    if (m.source_hash === facts.hash) return { of: m.candidate, how: 'the same sources up to comments and whitespace' };
    if (bin && m.binary_hash === bin) return { of: m.candidate, how: 'identical binaries' };
  }
  return undefined;
}

/** The cycle's island (in turn) and parent (its best, or a random elite); every `migration_interval` cycles the islands' best migrate first. */
export async function chooseParent(
  ws: string,
  config: IslandsConfig,
  cycle: number,
  champion: number,
  championJson: EvalDoc | undefined,
): Promise<{ parent: number; island: number; how: string }> {
  // The island's best with probability `exploitation`, else a random occupied cell. An empty island
  // starts from the champion (which joins it).
  let db = await readIslandDb(ws, config);
  const island = (cycle - 1) % config.count;
  if (cycle > 1 && cycle % config.migration_interval === 0 && db.islands.length > 1) {
    for (const from of db.islands)
      if (from.best) await append(ws, { cycle, candidate: from.best.candidate, from: from.index, island: (from.index + 1) % config.count }, 'migrate');
    db = await readIslandDb(ws, config);
  }
  const here = db.islands[island]!;
  if (!here.best) {
    if (championJson?.verdict === 'pass') {
      await recordMember(ws, { cycle, island, candidate: champion, json: championJson });
    }
    return { parent: champion, island, how: `island ${island} is empty: starting from the champion` };
  }
  const rnd = prng(cycle * 7919 + 101);
  if (rnd() < config.exploitation || here.cells.size === 1)
    return {
      parent: here.best.candidate,
      island,
      how: `island ${island}'s best (${candidateDirName(here.best.candidate)}, PAR-2 ${here.best.par2!.toFixed(2)} s)`,
    };
  const cells = [...here.cells.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  const [key, m] = cells[Math.floor(rnd() * cells.length)]!;
  return { parent: m.candidate, island, how: `a random elite of island ${island} (cell ${key}: ${candidateDirName(m.candidate)})` };
}
