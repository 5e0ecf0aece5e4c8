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

/**
 * Tseitin's parity formula on a `width` x `height` torus grid: a variable per edge, and at each vertex
 * the XOR of its four edges equals the vertex's charge. One vertex (chosen by `seed`) has charge 1, the
 * rest 0, so the charges sum to an odd number while every edge counts twice: UNSAT. Hard for resolution
 * in the grid's width (kissat: 5 x 8 about 1 s, 5 x 16 about 2.5 s, 6 x 20 over 20 s).
 */
export function tseitinTorus(width: number, height: number, seed: number): string {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 3 || height < 3) throw new Error(`no torus of ${width} x ${height} (3 x 3 or more)`);
  const rnd = prng(seed);
  const vertex = (x: number, y: number) => ((y + height) % height) * width + ((x + width) % width);
  const incident: number[][] = Array.from({ length: width * height }, () => []);
  let edges = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (const to of [vertex(x + 1, y), vertex(x, y + 1)]) {
        edges++;
        incident[vertex(x, y)]!.push(edges);
        incident[to]!.push(edges);
      }
  const odd = Math.floor(rnd() * width * height);
  return parityCnf(
    `c Tseitin parity on a ${width} x ${height} torus, odd charge at vertex ${odd} (UNSAT)`,
    edges,
    incident.map((es, v) => ({ vars: es, parity: v === odd ? 1 : 0 })),
  );
}

/** DIMACS for XOR constraints: each forbids, clause by clause, every assignment of its variables of the wrong parity. */
function parityCnf(comment: string, vars: number, xors: { vars: number[]; parity: number }[]): string {
  const clauses: string[] = [];
  for (const { vars: xs, parity } of xors)
    for (let mask = 0; mask < 1 << xs.length; mask++) {
      let ones = 0;
      for (let i = 0; i < xs.length; i++) ones += (mask >> i) & 1;
      // The clause false exactly under the assignment "variable i true iff bit i": forbidden when its parity is wrong.
      if (ones % 2 !== parity) clauses.push(`${xs.map((x, i) => ((mask >> i) & 1 ? -x : x)).join(' ')} 0`);
    }
  return `${comment}\np cnf ${vars} ${clauses.length}\n${clauses.join('\n')}\n`;
}

/**
 * `colors`-colouring of a random graph with `vertices` vertices and average degree `degree` (edges
 * drawn uniformly without repeats): one variable per vertex and colour, each vertex some colour and at
 * most one, no edge with both ends alike. Above 3-colourability's threshold (degree about 4.69) nearly
 * every draw is UNSAT, and near it the proofs are long (kissat: 500 vertices at 4.7 about 1.5 s).
 */
export function graphColoring(vertices: number, degree: number, colors: number, seed: number): string {
  const m = Math.round((vertices * degree) / 2);
  if (!Number.isInteger(vertices) || vertices < 2 || !Number.isInteger(colors) || colors < 2 || m > (vertices * (vertices - 1)) / 2)
    throw new Error(`no ${colors}-colouring graph with ${vertices} vertices at degree ${degree}`);
  const rnd = prng(seed);
  const x = (v: number, c: number) => v * colors + c + 1;
  const clauses: string[] = [];
  for (let v = 0; v < vertices; v++) {
    clauses.push(`${Array.from({ length: colors }, (_, c) => x(v, c)).join(' ')} 0`);
    for (let c = 0; c < colors; c++) for (let d = c + 1; d < colors; d++) clauses.push(`${-x(v, c)} ${-x(v, d)} 0`);
  }
  const seen = new Set<number>();
  while (seen.size < m) {
    const a = Math.floor(rnd() * vertices);
    const b = Math.floor(rnd() * vertices);
    const key = Math.min(a, b) * vertices + Math.max(a, b);
    if (a === b || seen.has(key)) continue;
    seen.add(key);
    for (let c = 0; c < colors; c++) clauses.push(`${-x(a, c)} ${-x(b, c)} 0`);
  }
  return `c ${colors}-colouring of a random graph, ${vertices} vertices, ${m} edges, seed ${seed}\np cnf ${vertices * colors} ${clauses.length}\n${clauses.join('\n')}\n`;
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
