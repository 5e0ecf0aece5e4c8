// Formula generators for smoke and verify sets whose answers are known by construction:
// pigeonhole PHP(P, H) is UNSAT for P > H; "2-hidden" planted random 3-SAT is SAT (clauses are
// satisfied by a hidden assignment and by its complement, which hides the planted solution).
import { prng } from '../stats/prng';

/** PHP(pigeons, holes) in DIMACS: every pigeon in a hole, no hole with two (UNSAT when pigeons > holes). */
export function pigeonhole(pigeons: number, holes: number): string {
  const v = (p: number, h: number) => (p - 1) * holes + h;
  const lines: string[] = [];
  for (let p = 1; p <= pigeons; p++) lines.push([...Array(holes)].map((_, h) => v(p, h + 1)).join(' ') + ' 0');
  for (let h = 1; h <= holes; h++) for (let p = 1; p <= pigeons; p++) for (let q = p + 1; q <= pigeons; q++) lines.push(`${-v(p, h)} ${-v(q, h)} 0`);
  return `c pigeonhole ${pigeons} pigeons into ${holes} holes (UNSAT when pigeons > holes)\np cnf ${pigeons * holes} ${lines.length}\n${lines.join('\n')}\n`;
}

export function planted3Sat(vars: number, ratio: number, seed: number): string {
  const { header, clauses } = planted(vars, ratio, seed);
  return header + clauses.join('\n') + '\n';
}

/** The formula's lines and the hidden assignment that satisfies it (index = variable, +1/-1). */
export function planted(vars: number, ratio: number, seed: number): { header: string; clauses: string[]; hidden: Int8Array } {
  const rnd = prng(seed);
  const hidden = new Int8Array(vars + 1);
  for (let v = 1; v <= vars; v++) hidden[v] = rnd() < 0.5 ? 1 : -1;
  const m = Math.round(vars * ratio);
  const clauses: string[] = [];
  while (clauses.length < m) {
    const lits = randomClause(rnd, vars);
    if (!lits) continue;
    const trueUnderHidden = lits.filter((l) => l * hidden[Math.abs(l)]! > 0).length;
    if (trueUnderHidden >= 1 && trueUnderHidden <= 2) clauses.push(`${lits.join(' ')} 0`);
  }
  return { header: `c 2-hidden planted random 3-SAT, ${vars} variables, ratio ${ratio}, seed ${seed} (SAT)\np cnf ${vars} ${m}\n`, clauses, hidden };
}

/** Uniform random 3-SAT (distinct variables per clause, random signs); near ratio 4.26 about half are UNSAT, answer unknown. */
export function uniform3Sat(vars: number, ratio: number, seed: number): string {
  const rnd = prng(seed);
  const m = Math.round(vars * ratio);
  const clauses: string[] = [];
  while (clauses.length < m) {
    const lits = randomClause(rnd, vars);
    if (lits) clauses.push(`${lits.join(' ')} 0`);
  }
  return `c uniform random 3-SAT, ${vars} variables, ratio ${ratio}, seed ${seed}\np cnf ${vars} ${m}\n${clauses.join('\n')}\n`;
}

/** Three random literals over distinct variables, or undefined when a variable repeats (the caller draws again; the draws stay as they always were, so seeds give the same formulas). */
function randomClause(rnd: () => number, vars: number): number[] | undefined {
  const x = 1 + Math.floor(rnd() * vars);
  const y = 1 + Math.floor(rnd() * vars);
  const z = 1 + Math.floor(rnd() * vars);
  if (x === y || x === z || y === z) return undefined;
  return [x, y, z].map((u) => (rnd() < 0.5 ? u : -u));
}

/**
 * The same formula up to isomorphism: variables renamed by a random permutation, polarities flipped at
 * random, clauses and the literals inside each clause reordered. The answer is unchanged; what a solver
 * does with it often is not (shuffled pigeonhole is several times slower for kissat), which makes
 * shuffles honest extra instances. Comment lines are dropped; `seed` fixes the result.
 */
export function shuffleCnf(text: string, seed: number): string {
  const rnd = prng(seed);
  let vars = -1;
  const clauses: number[][] = [];
  let current: number[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('c') || line.startsWith('%')) continue;
    if (line.startsWith('p')) {
      const m = /^p\s+cnf\s+(\d+)\s+(\d+)$/.exec(line);
      if (!m) throw new Error(`not a DIMACS CNF header: "${line}"`);
      vars = Number(m[1]);
      continue;
    }
    if (vars < 0) throw new Error('clauses before the "p cnf" header');
    for (const tok of line.split(/\s+/)) {
      const lit = Number(tok);
      if (!Number.isInteger(lit) || Math.abs(lit) > vars) throw new Error(`"${tok}" is not a literal of a formula with ${vars} variables`);
      if (lit === 0) {
        clauses.push(current);
        current = [];
      } else current.push(lit);
    }
  }
  if (vars < 0) throw new Error('no "p cnf" header');
  if (current.length) clauses.push(current); // a last clause without its 0, as some files end
  const perm = shuffled(
    Array.from({ length: vars }, (_, i) => i + 1),
    rnd,
  );
  const flip = Array.from({ length: vars + 1 }, () => (rnd() < 0.5 ? -1 : 1));
  const mapped = clauses.map((c) =>
    shuffled(
      c.map((l) => Math.sign(l) * flip[Math.abs(l)]! * perm[Math.abs(l) - 1]!),
      rnd,
    ),
  );
  const order = shuffled(mapped, rnd);
  return `c isomorphic shuffle (seed ${seed}) of a ${vars}-variable formula\np cnf ${vars} ${order.length}\n${order.map((c) => `${c.join(' ')} 0`).join('\n')}\n`;
}

/** A Fisher-Yates shuffle of a copy. */
function shuffled<T>(xs: T[], rnd: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
