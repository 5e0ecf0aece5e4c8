// Formula generators for smoke and verify sets whose answers are known by construction:
// pigeonhole PHP(P, H) is UNSAT for P > H; "2-hidden" planted random 3-SAT is SAT (clauses are
// satisfied by a hidden assignment and by its complement, which hides the planted solution).

/** A small deterministic PRNG (mulberry32), so generated sets are reproducible from their seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pigeonhole(pigeons: number, holes: number): string {
  const v = (p: number, h: number) => (p - 1) * holes + h;
  const lines: string[] = [];
  for (let p = 1; p <= pigeons; p++) lines.push([...Array(holes)].map((_, h) => v(p, h + 1)).join(' ') + ' 0');
  for (let h = 1; h <= holes; h++)
    for (let p = 1; p <= pigeons; p++) for (let q = p + 1; q <= pigeons; q++) lines.push(`${-v(p, h)} ${-v(q, h)} 0`);
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
