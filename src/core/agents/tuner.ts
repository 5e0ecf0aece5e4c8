// The offline tuner (no LLM): a (1+lambda) evolution strategy over the solver's option defaults. Each
// proposal mutates one or two options of the parent (log-scale steps within each option's range, flips
// for switches), writes the new defaults into the source, and the cycle's gates, racing and side-by-side
// duel decide, so tuned solvers are real candidates, recorded like every other. Each option has arms,
// its directions (up, down; each other value of a small enum): the arms the parent's earlier children
// tried least go first, ties in the order of PREFERRED (the options measured to matter most). The
// memory is read from the workspace, so it survives restarts; no value is proposed twice from a parent.
// The coder applies the changes that HYPOTHESIS.md names, so a person can edit the values before approving.
//
// Options are found in kissat-style `src/options.h` lines `OPTION (name, default, low, high, "help")`.
import * as path from 'node:path';
import { prng } from '../stats/prng';
import { parseCandidateDir } from '../layout';
import { CandidateStore } from '../store/candidates';
import type { EvolutionAgent } from './agent';
import { toolSummary } from './agentEvents';
import { runTool } from './coderTools';
import { appendCandidateDoc, readCandidateDoc, readCandidateText } from '../workspace/candidateFs';

export interface TunableOption {
  name: string;
  /** The default as written in the source (a number, or a macro name). */
  text: string;
  value: number;
  low: number;
  high: number;
  help: string;
}

const OPTION = /OPTION\s*\(\s*(\w+)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,\s*"([^"]*)"\s*\)/g;
const OPTIONS_FILE = path.join('src', 'options.h');
/** kissat's options.h is some 20 KB; a larger one is not an options file. */
const OPTIONS_MAX_BYTES = 1 << 20;

/**
 * Options worth tuning first (measured on kissat: these move PAR-2 beyond the noise, either way). Not a
 * list of safe values: `stable 0` (kissat's --unsat), `sweep 0` and `factor 0` make whole families far
 * slower, and only measurement (racing, the duel, the held-out set) keeps them out.
 */
export const PREFERRED = ['walkeffort', 'stable', 'rephaseint', 'target', 'restartint', 'reduceint', 'tier2', 'chrono', 'phase', 'sweep', 'factor'];

function num(s: string, defines: ReadonlyMap<string, string>, depth = 0): number | undefined {
  const t = s.trim();
  if (t === 'INT_MAX') return 2147483647;
  // A default named by a macro (kissat: `STABLE_DEFAULT`) is the value of its unconditional #define.
  if (/^[A-Za-z_]\w*$/.test(t)) return depth < 8 && defines.has(t) ? num(defines.get(t)!, defines, depth + 1) : undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** The file's `#define NAME VALUE` lines outside any #if block but the include guard (the defaults of a plain build). */
function unconditionalDefines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const guard = /^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\b/m.exec(text)?.[1];
  let depth = 0;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (guard && new RegExp(`^#\\s*ifndef\\s+${guard}\\b`).test(t)) continue;
    if (/^#\s*if/.test(t)) depth++;
    else if (/^#\s*endif/.test(t)) depth = Math.max(0, depth - 1);
    else if (depth === 0) {
      const m = /^#\s*define\s+([A-Za-z_]\w*)\s+(\S+)\s*$/.exec(t);
      if (m && !out.has(m[1]!)) out.set(m[1]!, m[2]!);
    }
  }
  return out;
}

export function parseOptions(text: string): TunableOption[] {
  const defines = unconditionalDefines(text);
  const out: TunableOption[] = [];
  for (const m of text.matchAll(OPTION)) {
    const [value, low, high] = [num(m[2]!, defines), num(m[3]!, defines), num(m[4]!, defines)];
    if (value === undefined || low === undefined || high === undefined || low >= high) continue; // unknown macros and fixed options
    out.push({ name: m[1]!, text: m[2]!.trim(), value, low, high, help: m[5]! });
  }
  return out;
}

/**
 * The directions an option can move in, as a representative value each (for a small enum, every other
 * value; for a number, one step up and one down, in random order), within its range.
 */
function armsOf(o: TunableOption, rnd: () => number): number[] {
  if (o.high - o.low <= 3) return Array.from({ length: o.high - o.low + 1 }, (_, i) => o.low + i).filter((v) => v !== o.value);
  const sides = [o.value < o.high ? o.value + 1 : undefined, o.value > o.low ? o.value - 1 : undefined].filter((v): v is number => v !== undefined);
  return rnd() < 0.5 ? sides : sides.reverse();
}

/** A new value: a switch flips, a small enum takes another value, a number moves by x/÷ 2, 4 or 10. */
export function mutate(o: TunableOption, rnd: () => number): number {
  const span = o.high - o.low;
  if (span <= 3) {
    const choices = Array.from({ length: span + 1 }, (_, i) => o.low + i).filter((v) => v !== o.value);
    return choices[Math.floor(rnd() * choices.length)]!;
  }
  for (let tries = 0; tries < 10; tries++) {
    const factor = [2, 4, 10][Math.floor(rnd() * 3)]!;
    const base = o.value === 0 ? Math.max(1, o.low) : o.value;
    const v = Math.round(rnd() < 0.5 ? base * factor : base / factor);
    const clamped = Math.min(o.high, Math.max(o.low, v));
    if (clamped !== o.value) return clamped;
  }
  return o.value === o.low ? o.high : o.low;
}

export function tunerAgent(opts: { only?: string[] } = {}): EvolutionAgent {
  let pending: { option: TunableOption; value: number }[] = [];
  const proposed = new Map<number, Set<string>>(); // this cycle's proposals (sift asks for several)
  return {
    name: 'tuner',
    async plan({ ws, cycle, proposal, hint, championDir, candidate, emit }) {
      const say = (message: string) => emit?.({ type: 'agent-log', role: 'tuner', message });
      const text = await readCandidateText(championDir, OPTIONS_FILE, { maxBytes: OPTIONS_MAX_BYTES }).catch(() => undefined);
      if (text === undefined)
        throw new Error(`the tuner needs ${OPTIONS_FILE} with OPTION (name, default, low, high, "help") lines (kissat's layout); this solver has none`);
      const all = parseOptions(text);
      // Kissat's options that matter first; a solver without any of them: all of its options.
      const preferred = all.filter((o) => PREFERRED.includes(o.name));
      const pool = opts.only?.length ? all.filter((o) => opts.only!.includes(o.name)) : preferred.length ? preferred : all;
      if (!pool.length) throw new Error(`no tunable options found in ${OPTIONS_FILE}`);
      say(`${all.length} tunable options in ${OPTIONS_FILE}; choosing among ${pool.map((o) => o.name).join(', ')}`);
      // Proposal 0 keeps the seed of a one-proposal cycle; later proposals of the same cycle differ.
      const rnd = prng(cycle * 104729 + 17 + (proposal ?? 0) * 7919);
      // A proposal the same as an earlier one of this cycle would only be judged and built twice.
      const made = proposed.get(cycle) ?? new Set<string>();
      proposed.clear();
      proposed.set(cycle, made);
      // What the parent's earlier children tried. An arm is an option and a direction (up or down; for a
      // small enum, one of its other values): arms least tried first, ties in the order of PREFERRED
      // (measured importance), then chance; a value already tried from this parent is not proposed again.
      const tried = await triedFrom(ws, championDir);
      // This cycle's earlier proposals, when their HYPOTHESIS.md is not in the workspace yet (counted once).
      for (const c of made)
        for (const m of c.split(', ').map(parseChange)) if (m && !tried.some((t) => t?.name === m.name && t.value === m.value)) tried.push(m);
      const arms = pool.flatMap((o) =>
        armsOf(o, rnd).map((side) => ({
          o,
          side,
          uses: tried.filter(
            (t) => t?.name === o.name && Math.sign(t.value - o.value) === Math.sign(side - o.value) && (o.high - o.low > 3 || t.value === side),
          ).length,
        })),
      );
      const rank = (name: string) => Math.max(0, PREFERRED.indexOf(name));
      const order = arms
        .map((a) => ({ a, key: a.uses * 1000 + rank(a.o.name) + 0.5 * rnd() }))
        .sort((x, y) => x.key - y.key)
        .map((x) => x.a);
      let changes = '';
      for (let tries = 0; tries < 20 && (!changes || made.has(changes)); tries++) {
        // A strategy's kernel: "diff" changes one option, "rewrite" two or three; else one, sometimes two.
        const k = hint?.startsWith('rewrite')
          ? Math.min(pool.length, rnd() < 0.5 ? 2 : 3)
          : hint?.startsWith('diff')
            ? 1
            : pool.length > 1 && rnd() < 0.3
              ? 2
              : 1;
        const chosen: typeof order = [];
        for (const a of tries === 0 ? order : [...order].sort(() => rnd() - 0.5)) if (chosen.length < k && !chosen.some((c) => c.o === a.o)) chosen.push(a);
        pending = chosen.map(({ o: option, side }) => {
          const fresh = (v: number) =>
            !tried.some((t) => t?.name === option.name && t.value === v) && Math.sign(v - option.value) === Math.sign(side - option.value);
          let value = option.high - option.low <= 3 ? side : mutate(option, rnd);
          for (let i = 0; i < 30 && !fresh(value); i++) value = mutate(option, rnd);
          return { option, value };
        });
        changes = pending.map((p) => `${p.option.name} ${p.option.value} -> ${p.value}`).join(', ');
      }
      made.add(changes);
      say(`mutated ${changes}`);
      const hypothesis = `# ${candidate}: tune ${changes}

## Change
New defaults in ${OPTIONS_FILE}: ${pending.map((p) => `\`${p.option.name}\` from ${p.option.text} to ${p.value} (${p.option.help}; range ${p.option.low}..${p.option.high})`).join('; ')}.

## Rationale
Offline tuner, cycle ${cycle}: a (1+lambda) evolution strategy mutates one or two options of the parent
(log-scale steps, flips for switches; the directions its earlier children tried least go first); racing
and the side-by-side duel with the champion decide whether it stays.

## Expected effect
Unknown before measuring: the option trades effort differently on SAT and UNSAT instances.

## Risks
Option values inside their declared ranges keep the solver sound; the gates check every answer.
`;
      return { title: `tune ${changes}`, hypothesis };
    },
    async code({ candidateDir, hypothesis, host, emit }) {
      const say = (message: string) => emit?.({ type: 'agent-log', role: 'tuner', message });
      const tool = (name: string, ok: boolean, content: string) => emit?.({ type: 'agent-tool', role: 'tuner', name, ok, summary: toolSummary(content) });
      const text = await readCandidateText(candidateDir, OPTIONS_FILE, { maxBytes: OPTIONS_MAX_BYTES });
      const opts = parseOptions(text);
      // HYPOTHESIS.md is the plan as approved (perhaps edited; or after a restart, the only record).
      const named = [...hypothesis.matchAll(/`(\w+)` from \S+ to (-?\d+)/g)].flatMap((m) => {
        const option = opts.find((o) => o.name === m[1]);
        return option ? [{ option, value: Number(m[2]) }] : [];
      });
      if (named.length) pending = named;
      if (!pending.length) return { finished: false, detail: 'HYPOTHESIS.md names no option change (`name` from X to Y)' };
      const outside = pending.find((p) => p.value < p.option.low || p.value > p.option.high);
      if (outside)
        return { finished: false, detail: `${outside.option.name} = ${outside.value} is outside its range ${outside.option.low}..${outside.option.high}` };
      for (const p of pending) {
        const line = [...text.matchAll(OPTION)].find((m) => m[1] === p.option.name)?.[0];
        if (!line) return { finished: false, detail: `option ${p.option.name} not found` };
        const edited = line.replace(/^(OPTION\s*\(\s*\w+\s*,\s*)[^,]+?(\s*,)/, `$1${p.value}$2`);
        const r = await runTool('edit_file', JSON.stringify({ path: OPTIONS_FILE, search: line, replace: edited }), host);
        tool('edit_file', !r.isError, r.isError ? r.content : `${OPTIONS_FILE}: ${p.option.name} = ${p.value}`);
        if (r.isError) return { finished: false, detail: r.content };
      }
      say('building');
      const b = await host.build();
      tool('build', b.ok, b.text);
      if (!b.ok) return { finished: false, detail: b.text.split('\n')[0] ?? 'build failed' };
      await appendCandidateDoc(
        candidateDir,
        'CHANGELOG.md',
        pending.map((p) => `- ${OPTIONS_FILE}: default of ${p.option.name} ${p.option.text} -> ${p.value}\n`).join(''),
        '# Changelog\n',
      );
      pending = [];
      return { finished: true, detail: 'options changed' };
    },
  };
}

/** "walkeffort 50 -> 500" as the option and its new value. */
function parseChange(text: string): { name: string; value: number } | undefined {
  const m = /^(\w+) \S+ -> (-?\d+)$/.exec(text.trim());
  return m ? { name: m[1]!, value: Number(m[2]) } : undefined;
}

/** The option changes the parent's earlier children proposed (from their HYPOTHESIS.md), read from the workspace. */
async function triedFrom(ws: string, parentDir: string): Promise<({ name: string; value: number } | undefined)[]> {
  const parent = parseCandidateDir(path.basename(parentDir));
  if (parent === undefined) return [];
  const index = await new CandidateStore(ws)
    .load()
    .then((s) => s.index)
    .catch(() => undefined);
  const out: ({ name: string; value: number } | undefined)[] = [];
  for (const c of index?.candidates.filter((x) => x.parent === parent) ?? []) {
    const text = (await readCandidateDoc(path.join(ws, c.dir), 'HYPOTHESIS.md').catch(() => undefined)) ?? '';
    for (const m of text.matchAll(/`(\w+)` from \S+ to (-?\d+)/g)) out.push({ name: m[1]!, value: Number(m[2]) });
  }
  return out;
}
