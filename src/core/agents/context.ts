// What the planner is told: a compact map of the champion's code, the metrics history (PAR-2 withheld
// until the configured cycle), recent failures (said without the expected answers), and a directive
// drawn from weighted meta-directions.
import { RE2JS } from 're2js';
import { readPortfolio, scorePortfolio } from '../objectives/portfolio';
import { prng } from '../stats/prng';
import { clusters, SignatureLog } from '../rules/postmortem';
import { CandidateStore } from '../store/candidates';
import { EvalStore } from '../eval/evalStore';
import { candidateDirName, parseCandidateDir } from '../layout';
import { readCandidateText, UnsafeCandidateFile, walkCandidate } from '../workspace/candidateFs';

const SOURCE = /\.(c|h|cc|cpp|cxx|hpp|hh)$/;
/** A function definition's name; RE2 (linear time), since the champion's code is a model's. */
const FUNCTION = RE2JS.compile('^(?:static\\s+|inline\\s+|extern\\s+)*[A-Za-z_][\\w\\s*]*?\\b([A-Za-z_]\\w*)\\s*\\([^;{}]*\\)\\s*\\{', RE2JS.MULTILINE);
/** Folders the map leaves out: history, build output, tests. */
const SKIPPED = new Set(['.git', 'build', 'test', 'bin']);
/** Source files larger than this are named in the map without their functions. */
const MAP_FILE_MAX_BYTES = 1 << 20;
/** A tree with more entries than this gets no map (a walk of millions of files is an attack on the walker). */
const MAP_MAX_ENTRIES = 100_000;

/** Source files with sizes and the functions they define, within a size budget (links and special files left out). */
export async function codeMap(dir: string, budget = 6000): Promise<string> {
  const lines: string[] = [];
  let entries;
  try {
    entries = await walkCandidate(dir, { maxEntries: MAP_MAX_ENTRIES });
  } catch (e) {
    if (e instanceof UnsafeCandidateFile) return `(no map: ${e.message})\n`;
    throw e;
  }
  for (const e of entries) {
    if (e.kind !== 'file' || !SOURCE.test(e.rel) || e.rel.split('/').some((part) => SKIPPED.has(part))) continue;
    if (e.size > MAP_FILE_MAX_BYTES) {
      lines.push(`${e.rel} (${e.size} bytes)`);
      continue;
    }
    const text = await readCandidateText(dir, e.rel, { maxBytes: MAP_FILE_MAX_BYTES, follow: false }).catch(() => undefined);
    if (text === undefined) continue; // changed or went away since the walk
    const fns = [...FUNCTION.matchAll(text)].map((m) => m[1]!).filter((n) => !['if', 'for', 'while', 'switch', 'return'].includes(n));
    lines.push(
      `${e.rel} (${text.split('\n').length} lines)${fns.length ? `: ${fns.slice(0, 12).join(', ')}${fns.length > 12 ? `, +${fns.length - 12}` : ''}` : ''}`,
    );
  }
  let out = '';
  for (const l of lines) {
    if (out.length + l.length > budget) {
      out += `[... ${lines.length - out.split('\n').length + 1} more files]\n`;
      break;
    }
    out += l + '\n';
  }
  return out;
}

/**
 * A failure as the agents see it: a wrong answer is named wrong, without the answer it should have been
 * (run/runInstance.ts writes "SAT claimed on x.cnf, but it is UNSAT (meta.csv)").
 */
export function withoutAnswers(text: string): string {
  return text
    .replace(/, but it is (?:SAT|UNSAT) \((meta\.csv|the baselines say so)\)/g, ', which is wrong ($1)')
    .replace(/although (meta\.csv says|an earlier run said) (?:SAT|UNSAT)/g, 'although $1 otherwise');
}

export interface Direction {
  text: string;
  weight: number;
}

export const DEFAULT_DIRECTIONS: Direction[] = [
  { text: 'Make propagation cheaper (watch lists, blocking literals, memory layout).', weight: 3 },
  { text: 'Improve conflict analysis and learned-clause quality (minimization, LBD use).', weight: 2 },
  { text: 'Tune the clause database reduction (tiers, frequency, what is kept).', weight: 2 },
  { text: 'Improve decisions, phases and restarts; consider SAT and UNSAT instances separately.', weight: 2 },
  { text: 'Rebalance inprocessing effort (vivification, elimination, probing) where the metrics show waste.', weight: 2 },
  { text: 'Remove overhead: simplify code paths that cost time without paying off.', weight: 1 },
];

/** A directive drawn by weight, reproducibly from the cycle number. */
export function drawDirection(directions: Direction[], cycle: number): Direction {
  const total = directions.reduce((s, d) => s + Math.max(0, d.weight), 0);
  let x = prng(cycle * 7919 + 1)() * total;
  for (const d of directions) {
    x -= Math.max(0, d.weight);
    if (x < 0) return d;
  }
  return directions[directions.length - 1]!;
}

/** One line per evaluated candidate; PAR-2 figures are withheld before cycle `par2From`. */
export async function metricsHistory(ws: string, cycle: number, par2From: number): Promise<string> {
  const evals = new EvalStore(ws);
  const showPar2 = cycle >= par2From;
  const out: string[] = [];
  for (const dir of (await evals.candidates()).sort((a, b) => parseCandidateDir(a)! - parseCandidateDir(b)!)) {
    // An unreadable evaluation is skipped: the planner sees what can be trusted.
    const j = await evals.get(dir);
    if (j) {
      const failed = j.gates.find((g) => !g.ok);
      const m = j.metrics;
      const perf = m
        ? `solved ${m.solved}/${m.n} (SAT ${m.solved_sat}, UNSAT ${m.solved_unsat})${showPar2 ? `, PAR-2 ${m.par2.toFixed(2)} s (SAT ${m.par2_sat?.toFixed(2) ?? '-'}, UNSAT ${m.par2_unsat?.toFixed(2) ?? '-'})` : ''}`
        : '';
      // A measurement from a cheaper perf tier is not comparable with full-set figures: say so.
      const tier = j.tier && j.tier.reached < j.tier.of ? ` [perf tier ${j.tier.reached} of ${j.tier.of}: a subset at a shorter timeout]` : '';
      out.push(`${dir}: ${j.verdict}${failed ? ` (failed ${failed.gate}: ${failed.detail.slice(0, 160)})` : ''}${perf ? `; ${perf}` : ''}${tier}`);
    }
  }
  if (!showPar2 && out.length) out.push(`(PAR-2 figures are withheld until cycle ${par2From}; judge by solved counts and correctness)`);
  return withoutAnswers(out.join('\n')) || '(no evaluations yet)';
}

/** Failed candidates and the failure patterns that repeat. */
export async function recentFailures(ws: string, limit = 8): Promise<string> {
  const { index } = await new CandidateStore(ws).load();
  const failed = index.candidates
    .filter((c) => c.status === 'failed')
    .slice(-limit)
    .map((c) => `${c.dir}: ${c.detail ?? 'failed'}`);
  // A person's "no" (and why) steers the next plan as much as a failed gate does.
  const declined = index.candidates
    .filter((c) => c.status === 'discarded' && c.detail && /rejected|declined/.test(c.detail))
    .slice(-limit)
    .map((c) => `${c.dir}: ${c.detail}`);
  const repeated = clusters(await new SignatureLog(ws).all())
    .filter((c) => c.candidates.length > 1)
    .slice(0, 5)
    .map((c) => `${c.key} (in ${c.candidates.join(', ')})`);
  return (
    withoutAnswers(
      [
        ...failed,
        ...(declined.length ? ['Plans or candidates a person turned down:', ...declined] : []),
        ...(repeated.length ? ['Repeated failure patterns:', ...repeated] : []),
      ].join('\n'),
    ) || '(no failures yet)'
  );
}

/** The objective portfolio's view, when there is one: which candidates the consensus ranks best and by which objectives. */
export async function consensusSummary(ws: string): Promise<string> {
  if (!(await readPortfolio(ws)).length) return '';
  const v = await scorePortfolio(ws);
  if (!v.candidates.length) return '';
  const objectives = v.objectives.map((o) => `${o.name} (weight ${o.weight.toFixed(2)}): ${o.rationale}`).join('; ');
  return `Consensus of the objective portfolio (0 = first on every weighted objective): ${v.candidates
    .slice(0, 8)
    .map((c) => `${candidateDirName(c.candidate)} ${c.score.toFixed(2)}`)
    .join(', ')}. Objectives: ${objectives}`;
}
