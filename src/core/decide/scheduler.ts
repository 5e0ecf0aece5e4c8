// The scheduler of a side-by-side session (measureTogether.ts): side A (the champion, or the
// reference of a duel) and one or more sides B run a set in a fixed order, instance by instance, so each
// B is paired with the same A run, in the same moment. With several lanes (a local runner's slots) each
// lane takes every lanes-th instance and runs its entrants back to back on one core, their order
// rotating from one instance to the next (with two sides: ABBA), so no side always runs first, and the
// same on every lane, so that while the lanes keep pace each side runs beside itself; with one
// lane (a remote runner, one slot) blocks of `block` instances. After each instance a race's rule may
// drop a B (`look`, on the pairs of the longest finished prefix of the order, so a resumed session
// judges alike); A stops when no B is left. Where a surviving B's run was capped, or A's run went past
// B's cap there, both run that instance again in full, and the fresh pair replaces the old one: the
// choice of instances is the same for A's runs as for B's, so for identical solvers every pair stays
// exchangeable and the test's level holds at any cap (re-running B alone would swap its slow draws for
// fresh ones). Unless `settle` says B cannot win even so. Last, in rounds, where `again` names instances
// for a survivor (its decision in doubt), both run them once more; those runs are kept beside the pairs,
// not in them. Pure scheduling: the runs themselves are the caller's (`run`).
import type { InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';

/** A side's key: 'A' for the reference, the caller's keys for the others. */
export type Side = string;

/**
 * Runs `instances` for a side; `lane` pins to a core (lanes > 1); `caps` are per-instance time limits
 * under the timeout; `repeat`, how many times the side ran these instances before in the session (absent:
 * never): a run again must be a new run, never the stored earlier one.
 */
export type RunBlock = (
  side: Side,
  instances: InstanceSpec[],
  o: { lane?: number; caps: ReadonlyMap<string, number>; repeat?: number },
) => Promise<InstanceResult[]>;

/** What to schedule. */
export interface SessionRequest {
  order: readonly InstanceSpec[];
  challengers: readonly Side[];
  lanes: number;
  /** Instances per block when lanes is 1. */
  block: number;
  timeoutS: number;
  run: RunBlock;
  /** A B's cap on an instance (seconds, under the timeout), or undefined for none. */
  cap?: (instance: string) => number | undefined;
  /** Whether to drop a B now, given its pairs over the finished prefix (A's and its runs, with its caps): a reason, or undefined. */
  look?: (side: Side, pairs: readonly SessionPair[]) => string | undefined;
  /**
   * At the end, before a surviving B's capped runs run again in full: a reason it cannot win even if
   * they had ended at their caps (it is dropped then, and they are not run again), or undefined.
   */
  settle?: (side: Side, pairs: readonly SessionPair[]) => string | undefined;
  /**
   * At the very end, round after round, for a survivor: instances both run once more, given its final
   * pairs with their further runs so far; none ends its rounds (so must some round: MAX_AGAIN_ROUNDS).
   */
  again?: (side: Side, pairs: readonly SessionPair[]) => readonly string[];
}

/** The most rounds of further runs a session makes, whatever `again` asks. */
export const MAX_AGAIN_ROUNDS = 14;

/** Both sides' further run of an instance, and the order they ran in. */
export interface AgainRuns {
  a: InstanceResult;
  b: InstanceResult;
  order: Side[];
}

/** A B's pair on one instance: A's run, its own, and the cap its run had (the timeout when none). */
export interface SessionPair {
  instance: string;
  a: InstanceResult;
  b: InstanceResult;
  capS: number;
  /** Both sides' further runs of the instance so far, in the order they ran (`again`). */
  again?: readonly AgainRuns[];
}

/** One B side after the session. */
export interface SessionSide {
  results: Map<string, InstanceResult>;
  /** A's runs of the instances both ran again for this B (they replace A's session runs in its pairs), and the order the sides ran them in. */
  fresh: Map<string, { a: InstanceResult; order: Side[] }>;
  /** The caps its runs had (the instances run again in full are no longer here). */
  caps: Map<string, number>;
  /** Capped runs it had before they ran again in full. */
  capped: number;
  /** Instances both ran again in full (its capped ones, and those where A's run went past its cap). */
  rerun: number;
  /** Further runs of both sides where `again` asked for them, beside the pairs (which keep the first), in the order they ran. */
  again: Map<string, AgainRuns[]>;
  /** Set when the rule dropped it: after how many instances of the order, and why. */
  dropped?: { after: number; reason: string };
}

/** The session: A's runs, each B's, and the order the sides ran each instance in. */
export interface SessionOutcome {
  a: Map<string, InstanceResult>;
  b: Map<Side, SessionSide>;
  orders: Map<string, Side[]>;
}

/** Runs the session to its end (every instance, or no B left). */
export async function runSession(req: SessionRequest): Promise<SessionOutcome> {
  const { order, timeoutS } = req;
  const a = new Map<string, InstanceResult>();
  const b = new Map<Side, SessionSide>(
    req.challengers.map((s) => [s, { results: new Map(), fresh: new Map(), again: new Map(), caps: new Map(), capped: 0, rerun: 0 }]),
  );
  const orders = new Map<string, Side[]>();
  const alive = () => req.challengers.filter((s) => !b.get(s)!.dropped);
  const finished = new Set<number>();
  let prefix = 0;
  // Lanes wait for the judged prefix when they run ahead: a challenger's runs past the instance it is
  // dropped at are spent for nothing, and a lane held up by one long instance would let the other run on.
  const ahead = 2 * Math.max(1, req.lanes);
  let waiters: (() => void)[] = [];
  const caughtUp = (j: number): Promise<void> =>
    j < prefix + ahead || !req.look || !alive().length ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)).then(() => caughtUp(j));
  const capsOf = (side: Side, chunk: readonly InstanceSpec[]) => {
    const caps = new Map<string, number>();
    if (side === 'A') return caps;
    for (const i of chunk) {
      const c = req.cap?.(i.name);
      if (c !== undefined && c < timeoutS) caps.set(i.name, c);
    }
    for (const [k, v] of caps) b.get(side)!.caps.set(k, v);
    return caps;
  };
  /** A B's pairs over the first `upTo` instances of the order (with A's fresh run where both ran it again). */
  const pairsOf = (side: Side, upTo: number): SessionPair[] => {
    const s = b.get(side)!;
    return order.slice(0, upTo).flatMap((i) => {
      const [x, y] = [s.fresh.get(i.name)?.a ?? a.get(i.name), s.results.get(i.name)];
      return x && y ? [{ instance: i.name, a: x, b: y, capS: s.caps.get(i.name) ?? timeoutS }] : [];
    });
  };
  /** The finished prefix grows: judge every B still in at each new length, in order. */
  const advance = () => {
    const before = prefix;
    while (finished.has(prefix)) {
      prefix++;
      if (!req.look) continue;
      for (const side of alive()) {
        const why = req.look(side, pairsOf(side, prefix));
        if (why) b.get(side)!.dropped = { after: prefix, reason: why };
      }
    }
    if (prefix > before) {
      const wake = waiters;
      waiters = [];
      for (const w of wake) w();
    }
  };
  /** One chunk of the order, every side still in, in rotated order (position `k` of its lane). */
  const runChunk = async (at: number[], k: number, lane: number | undefined) => {
    const chunk = at.map((j) => order[j]!);
    const entrants: Side[] = ['A', ...alive()];
    const rot = k % entrants.length;
    const sequence = [...entrants.slice(rot), ...entrants.slice(0, rot)];
    for (const i of chunk) orders.set(i.name, sequence);
    for (const side of sequence) {
      // A side dropped while this chunk ran (by another lane's look) is not run further.
      if (side !== 'A' && b.get(side)!.dropped) continue;
      const rs = await req.run(side, chunk, { ...(lane !== undefined ? { lane } : {}), caps: capsOf(side, chunk) });
      for (const r of rs) (side === 'A' ? a : b.get(side)!.results).set(r.instance, r);
    }
    for (const j of at) finished.add(j);
    advance();
  };
  if (req.lanes > 1) {
    await Promise.all(
      Array.from({ length: req.lanes }, async (_, lane) => {
        for (let j = lane, k = 0; j < order.length; j += req.lanes, k++) {
          await caughtUp(j);
          if (req.challengers.length && !alive().length) return;
          // The same rotation on every lane at each step: while the lanes keep pace, each side runs beside
          // itself, so a side whose memory traffic slows the run beside it slows its own runs, never
          // only the other side's (bench/interference.ts; docs/measurement.md).
          await runChunk([j], k, lane);
        }
      }),
    );
  } else {
    const block = Math.max(1, req.block);
    for (let k = 0, at = 0; at < order.length; k++, at += block) {
      if (req.challengers.length && !alive().length) break;
      await runChunk(
        Array.from({ length: Math.min(block, order.length - at) }, (_, d) => at + d),
        k,
        undefined,
      );
    }
  }
  // A survivor's capped instances, and those where A went past its cap, again in full for both sides.
  // Unless even the capped pairs say it cannot win.
  const again = new Map<Side, Set<string>>();
  for (const side of alive()) {
    const s = b.get(side)!;
    s.capped = order.filter((i) => s.results.get(i.name)?.status === 'timeout' && s.caps.has(i.name)).length;
    const over = order.filter((i) => {
      const cap = s.caps.get(i.name);
      const [ra, rb] = [a.get(i.name), s.results.get(i.name)];
      return cap !== undefined && ra && rb && (rb.status === 'timeout' || ra.status !== 'solved' || ra.time_s > cap);
    });
    if (!over.length) continue;
    const why = s.capped ? req.settle?.(side, pairsOf(side, order.length)) : undefined;
    if (why) {
      s.dropped = { after: order.length, reason: why };
      continue;
    }
    again.set(side, new Set(over.map((i) => i.name)));
  }
  const ran = new Map<string, number>();
  await bothAgain(req, order, again, ran, (side, i, runs, sequence) => {
    const s = b.get(side)!;
    s.caps.delete(i);
    s.results.set(i, runs.get(side)!);
    s.fresh.set(i, { a: runs.get('A')!, order: sequence });
    s.rerun++;
  });
  for (const s of b.values()) if (s.dropped) s.capped = [...s.results.values()].filter((r) => r.status === 'timeout' && s.caps.has(r.instance)).length;
  // Further runs, round by round, while a survivor's decision is in doubt.
  const withAgain = (side: Side) => pairsOf(side, order.length).map((p) => ({ ...p, again: b.get(side)!.again.get(p.instance) ?? [] }));
  for (let round = 0, asking = req.again ? alive() : []; asking.length && round < MAX_AGAIN_ROUNDS; round++) {
    const more = new Map<Side, Set<string>>();
    for (const side of asking) {
      const names = req.again!(side, withAgain(side));
      if (names.length) more.set(side, new Set(names));
    }
    await bothAgain(req, order, more, ran, (side, i, runs, sequence) => {
      const s = b.get(side)!;
      s.again.set(i, [...(s.again.get(i) ?? []), { a: runs.get('A')!, b: runs.get(side)!, order: sequence }]);
    });
    asking = [...more.keys()];
  }
  return { a, b, orders };
}

/**
 * Runs each instance some B sides need again, in full, once for A and once for each of them (their order
 * rotating over the instances and over the rounds), pinned to a lane as the session's runs were (a run on a CPU mask of its own would tell a
 * solver it is a re-run), and hands over the runs.
 */
async function bothAgain(
  req: SessionRequest,
  order: readonly InstanceSpec[],
  wanted: ReadonlyMap<Side, ReadonlySet<string>>,
  /** How many times each side ran each instance again so far (by side and instance), counted on. */
  ran: Map<string, number>,
  keep: (side: Side, instance: string, runs: ReadonlyMap<Side, InstanceResult>, sequence: Side[]) => void,
): Promise<void> {
  for (const [k, i] of order.filter((x) => [...wanted.values()].some((names) => names.has(x.name))).entries()) {
    const entrants: Side[] = ['A', ...[...wanted.keys()].filter((side) => wanted.get(side)!.has(i.name))];
    // The order rotates from instance to instance and, for one instance, from round to round.
    const rot = (k + (ran.get(`A\0${i.name}`) ?? 0)) % entrants.length;
    const sequence = [...entrants.slice(rot), ...entrants.slice(0, rot)];
    const runs = new Map<Side, InstanceResult>();
    const lane = req.lanes > 1 ? { lane: k % req.lanes } : {};
    for (const side of sequence) {
      const repeat = (ran.get(`${side}\0${i.name}`) ?? 0) + 1;
      ran.set(`${side}\0${i.name}`, repeat);
      for (const r of await req.run(side, [i], { caps: new Map(), ...lane, repeat })) runs.set(side, r);
    }
    for (const side of entrants.slice(1)) keep(side, i.name, runs, sequence);
  }
}

/** A B side's pairs after the session, in the order: A's run of each instance it ran (the fresh one where both ran it again in full), its own, the order they ran in, and their further runs where `again` asked for them. */
export function sidePairs(
  out: SessionOutcome,
  side: Side,
  order: readonly InstanceSpec[],
): { a: InstanceResult; b: InstanceResult; order: Side[] | undefined; again?: AgainRuns[] }[] {
  const s = out.b.get(side)!;
  return order.flatMap((i) => {
    const [x, y] = [s.fresh.get(i.name)?.a ?? out.a.get(i.name), s.results.get(i.name)];
    const again = s.again.get(i.name);
    return x && y ? [{ a: x, b: y, order: s.fresh.get(i.name)?.order ?? out.orders.get(i.name), ...(again ? { again } : {}) }] : [];
  });
}

/** A side's further runs by instance (sidePairs' `again`), as comparison.ts compareRuns takes them. */
export const furtherRuns = (
  pairs: readonly { a: InstanceResult; again?: readonly { a: InstanceResult; b: InstanceResult }[] }[],
): Map<string, readonly { a: InstanceResult; b: InstanceResult }[]> =>
  new Map(pairs.flatMap((p) => (p.again?.length ? [[p.a.instance, p.again] as const] : [])));
