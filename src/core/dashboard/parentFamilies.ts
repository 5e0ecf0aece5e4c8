// A challenger's families against its parent, where the parent is not the champion it met (islands,
// SMC: a parent from the database or a particle). The two were never measured side by side, and their
// own sessions' speeds differ, so their stored results are not compared. Each decision duel is a
// same-session ratio of two solvers per family; a path of such duels from the parent to the challenger
// (through the champion both met, or the one promoted over the parent) multiplies them, so each
// session's speed cancels within its own duel. Every duel on the path must be on the same set, with the
// family the same size in each.
import type { DuelFamily } from '../decide/duels';

/** One decision duel, as the chain reads it: A and B as candidate ids, its set, and its families. */
export interface FamilyDuel {
  a: number;
  b: number;
  set: string;
  /** When it ended (ISO): of two duels between the same pair, the later counts. */
  at: string;
  families: readonly Pick<DuelFamily, 'family' | 'instances' | 'par2A' | 'par2B'>[];
}

/** A family's PAR-2 change from the parent to the challenger, percent of the parent's (positive: slower). */
export interface ChainedFamily {
  family: string;
  instances: number;
  changePct: number;
}

/** The challenger against its parent through duels: the candidates the path passes (parent first, challenger last) and each family's change. */
export interface ParentFamilies {
  parent: number;
  via: number[];
  families: ChainedFamily[];
}

/** The longest path looked for, in duels: the parent and the challenger met one champion (2), or the champion after it (3). */
const MAX_HOPS = 3;

/**
 * The families of `challenger` against `parent`, chained through the shortest path of duels between
 * them that share a set (at most three duels); undefined when there is none, or no family is on every
 * duel of it with one size.
 */
export function familiesAgainstParent(challenger: number, parent: number, duels: readonly FamilyDuel[]): ParentFamilies | undefined {
  if (challenger === parent) return undefined;
  // The latest duel of each unordered pair: an edge both ways.
  const latest = new Map<string, FamilyDuel>();
  for (const d of duels) {
    if (d.a === d.b || !d.families.length) continue;
    const k = d.a < d.b ? `${d.a}:${d.b}` : `${d.b}:${d.a}`;
    const had = latest.get(k);
    if (!had || had.at < d.at) latest.set(k, d);
  }
  const next = new Map<number, FamilyDuel[]>();
  for (const d of latest.values())
    for (const x of [d.a, d.b]) {
      const list = next.get(x) ?? [];
      list.push(d);
      next.set(x, list);
    }
  // Breadth first from the parent: the first path found is a shortest one.
  const back = new Map<number, FamilyDuel | null>([[parent, null]]);
  let frontier = [parent];
  for (let hop = 0; hop < MAX_HOPS && frontier.length && !back.has(challenger); hop++) {
    const grown: number[] = [];
    for (const x of frontier)
      for (const d of next.get(x) ?? []) {
        const y = d.a === x ? d.b : d.a;
        if (back.has(y)) continue;
        back.set(y, d);
        grown.push(y);
      }
    frontier = grown;
  }
  if (!back.has(challenger)) return undefined;
  const path: { from: number; to: number; duel: FamilyDuel }[] = [];
  for (let x = challenger; x !== parent;) {
    const d = back.get(x)!;
    if (!d) break;
    const from = d.a === x ? d.b : d.a;
    path.unshift({ from, to: x, duel: d });
    x = from;
  }
  if (new Set(path.map((p) => p.duel.set)).size > 1) return undefined;
  const families: ChainedFamily[] = [];
  for (const f of path[0]!.duel.families) {
    let ratio = 1;
    for (const p of path) {
      const g = p.duel.families.find((x) => x.family === f.family);
      if (!g || g.instances !== f.instances || !(g.par2A > 0) || !(g.par2B > 0)) {
        ratio = NaN;
        break;
      }
      // B's PAR-2 over A's, turned round where the path walks from B to A.
      ratio *= p.duel.a === p.from ? g.par2B / g.par2A : g.par2A / g.par2B;
    }
    if (Number.isFinite(ratio)) families.push({ family: f.family, instances: f.instances, changePct: (ratio - 1) * 100 });
  }
  if (!families.length) return undefined;
  families.sort((x, y) => y.changePct - x.changePct || x.family.localeCompare(y.family));
  return { parent, via: [parent, ...path.map((p) => p.to)], families };
}
