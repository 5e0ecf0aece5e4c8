// The offline tuner (no LLM): a (1+1) evolution strategy over the solver's option defaults. Each cycle
// mutates one or two options of the champion (log-scale steps within each option's range, flips for
// switches), writes the new defaults into the source, and the cycle's gates and paired test decide —
// so tuned solvers are real candidates, recorded like every other. The coder applies the changes that
// HYPOTHESIS.md names, so a person can edit the values before approving.
//
// Options are found in kissat-style `src/options.h` lines `OPTION (name, default, low, high, "help")`.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { prng } from '../instances/generators';
import type { EvolutionAgent } from './agent';
import { toolSummary } from './events';
import { runTool } from './tools';

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

/** Options worth tuning first (measured on kissat: these move PAR-2 beyond the noise). */
export const PREFERRED = ['walkeffort', 'stable', 'rephaseint', 'target', 'restartint', 'reduceint', 'tier2', 'chrono', 'phase'];

function num(s: string): number | undefined {
  const t = s.trim();
  if (t === 'INT_MAX') return 2147483647;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

export function parseOptions(text: string): TunableOption[] {
  const out: TunableOption[] = [];
  for (const m of text.matchAll(OPTION)) {
    const [value, low, high] = [num(m[2]!), num(m[3]!), num(m[4]!)];
    if (value === undefined || low === undefined || high === undefined || low >= high) continue; // macros and fixed options
    out.push({ name: m[1]!, text: m[2]!.trim(), value, low, high, help: m[5]! });
  }
  return out;
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
    async plan({ cycle, proposal, hint, championDir, candidate, emit }) {
      const say = (message: string) => emit?.({ type: 'agent-log', role: 'tuner', message });
      const text = await fs.readFile(path.join(championDir, OPTIONS_FILE), 'utf8').catch(() => undefined);
      if (text === undefined) throw new Error(`the tuner needs ${OPTIONS_FILE} with OPTION (name, default, low, high, "help") lines (kissat's layout); this solver has none`);
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
      let changes = '';
      for (let tries = 0; tries < 20 && (!changes || made.has(changes)); tries++) {
        // A strategy's kernel: "diff" changes one option, "rewrite" two or three; else one, sometimes two.
        const k = hint?.startsWith('rewrite') ? Math.min(pool.length, rnd() < 0.5 ? 2 : 3) : hint?.startsWith('diff') ? 1 : pool.length > 1 && rnd() < 0.3 ? 2 : 1;
        const chosen = [...pool].sort(() => rnd() - 0.5).slice(0, k);
        pending = chosen.map((option) => ({ option, value: mutate(option, rnd) }));
        changes = pending.map((p) => `${p.option.name} ${p.option.value} -> ${p.value}`).join(', ');
      }
      made.add(changes);
      say(`mutated ${changes}`);
      const hypothesis = `# ${candidate}: tune ${changes}

## Change
New defaults in ${OPTIONS_FILE}: ${pending.map((p) => `\`${p.option.name}\` from ${p.option.text} to ${p.value} (${p.option.help}; range ${p.option.low}..${p.option.high})`).join('; ')}.

## Rationale
Offline tuner, cycle ${cycle}: a (1+1) evolution strategy mutates one or two options of the champion
(log-scale steps, flips for switches); the paired test against the champion decides whether it stays.

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
      const text = await fs.readFile(path.join(candidateDir, OPTIONS_FILE), 'utf8');
      const opts = parseOptions(text);
      // HYPOTHESIS.md is the plan as approved (perhaps edited; or after a restart, the only record).
      const named = [...hypothesis.matchAll(/`(\w+)` from \S+ to (-?\d+)/g)].flatMap((m) => {
        const option = opts.find((o) => o.name === m[1]);
        return option ? [{ option, value: Number(m[2]) }] : [];
      });
      if (named.length) pending = named;
      if (!pending.length) return { finished: false, detail: 'HYPOTHESIS.md names no option change (`name` from X to Y)' };
      const outside = pending.find((p) => p.value < p.option.low || p.value > p.option.high);
      if (outside) return { finished: false, detail: `${outside.option.name} = ${outside.value} is outside its range ${outside.option.low}..${outside.option.high}` };
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
      const changelog = path.join(candidateDir, 'CHANGELOG.md');
      await fs.appendFile(changelog, pending.map((p) => `- ${OPTIONS_FILE}: default of ${p.option.name} ${p.option.text} -> ${p.value}\n`).join(''));
      pending = [];
      return { finished: true, detail: 'options changed' };
    },
  };
}
