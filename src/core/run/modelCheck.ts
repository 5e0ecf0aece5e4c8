// SAT models: built from the solver's `v` lines as they stream in, then checked against the formula
// clause by clause while the CNF streams past; neither the model text nor the formula is kept.
import { readDimacs } from '../instances/dimacs';

export class ModelBuilder {
  /** assign[v] = 1 (true), -1 (false) or 0 (unassigned). */
  private assign = new Int8Array(1024);
  maxVar = 0;
  literals = 0;
  terminated = false;
  /** The first problem seen in the `v` lines, if any. */
  problem: string | undefined;

  /** `maxVar`: the formula's variable count, so garbage like `v 2000000000` cannot exhaust memory. */
  constructor(private readonly maxVarAllowed = 1 << 28) {}

  add(lit: number): void {
    if (this.problem) return;
    if (lit === 0) {
      if (this.terminated) this.problem = 'more than one terminating 0 in the v lines';
      this.terminated = true;
      return;
    }
    if (this.terminated) {
      this.problem = `literal ${lit} after the terminating 0`;
      return;
    }
    const v = lit < 0 ? -lit : lit;
    if (v > this.maxVarAllowed) {
      this.problem = `literal ${lit} is out of range (the formula has ${this.maxVarAllowed} variables)`;
      return;
    }
    if (v >= this.assign.length) {
      let size = this.assign.length;
      while (size <= v) size *= 2;
      const bigger = new Int8Array(size);
      bigger.set(this.assign);
      this.assign = bigger;
    }
    const val = lit < 0 ? -1 : 1;
    const old = this.assign[v]!;
    if (old !== 0 && old !== val) {
      this.problem = `variable ${v} is assigned both ways`;
      return;
    }
    this.assign[v] = val;
    if (v > this.maxVar) this.maxVar = v;
    this.literals++;
  }

  value(v: number): number {
    return v < this.assign.length ? this.assign[v]! : 0;
  }
}

export interface ModelCheck {
  ok: boolean;
  detail: string;
  timeS: number;
  bytes: number;
}

/**
 * Checks that the model satisfies every clause of the formula. A partial assignment is accepted if
 * it satisfies every clause (SAT Competition rules).
 */
export async function checkModel(cnf: string, model: ModelBuilder): Promise<ModelCheck> {
  const t0 = process.hrtime.bigint();
  const done = (ok: boolean, detail: string, bytes = 0): ModelCheck => ({ ok, detail, bytes, timeS: Number(process.hrtime.bigint() - t0) / 1e9 });
  if (model.problem) return done(false, `malformed model: ${model.problem}`);
  if (!model.terminated) return done(false, model.literals === 0 ? 'SAT claimed without a model (no v lines)' : 'the v lines do not end with 0');
  let falsified: string | undefined;
  let vars = 0;
  let clauseNo = 0;
  // Literal by literal: whether the clause being read is satisfied yet, and its first literals for the message.
  let satisfied = false;
  const first: number[] = [];
  const summary = await readDimacs(cnf, {
    header: (h) => (vars = h.vars),
    literal(l) {
      if (first.length < 8) first.push(l);
      if (!satisfied && model.value(l < 0 ? -l : l) === (l < 0 ? -1 : 1)) satisfied = true;
    },
    clauseEnd(len, line) {
      clauseNo++;
      if (!satisfied && !falsified) falsified = `clause ${clauseNo} (line ${line}: ${first.join(' ')}${len > 8 ? ' ...' : ''} 0) is not satisfied`;
      satisfied = false;
      first.length = 0;
    },
  });
  if (model.maxVar > vars) return done(false, `the model assigns variable ${model.maxVar} but the formula has ${vars}`, summary.bytes);
  if (falsified) return done(false, falsified, summary.bytes);
  return done(true, `all ${summary.clauses} clauses satisfied`, summary.bytes);
}
