// Token and USD accounting per role, cycle and run, persisted as JSONL, and the budget cap that stops
// a run cleanly before a call that could not be paid for.
import * as path from 'node:path';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { STATE_DIR } from '../layout';
import { LlmError, type Role, type Usage } from './provider';

export interface Prices {
  /** USD per million tokens. Cache reads and writes default to the input price. */
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

export function costUsd(u: Usage, p: Prices | undefined): number {
  if (!p) return 0;
  return (u.input * p.input + u.output * p.output + u.cacheRead * (p.cache_read ?? p.input) + u.cacheWrite * (p.cache_write ?? p.input)) / 1e6;
}

export interface UsageRecord {
  at: string;
  run: string;
  cycle: number | null;
  role: Role;
  model: string;
  usage: Usage;
  usd: number;
}

export class UsageLedger {
  private records: UsageRecord[] | undefined;

  constructor(
    readonly file: string,
    private readonly budgetUsd?: number,
  ) {}

  static forWorkspace(ws: string, budgetUsd?: number): UsageLedger {
    return new UsageLedger(path.join(ws, STATE_DIR, 'usage.jsonl'), budgetUsd);
  }

  private async load(): Promise<UsageRecord[]> {
    this.records ??= (await readJsonLines(this.file)).records as UsageRecord[];
    return this.records;
  }

  async add(r: UsageRecord): Promise<void> {
    await appendJsonLine(this.file, r);
    (await this.load()).push(r);
  }

  async totalUsd(filter: Partial<Pick<UsageRecord, 'run' | 'cycle' | 'role'>> = {}): Promise<number> {
    return (await this.load())
      .filter(
        (r) =>
          (filter.run === undefined || r.run === filter.run) &&
          (filter.cycle === undefined || r.cycle === filter.cycle) &&
          (filter.role === undefined || r.role === filter.role),
      )
      .reduce((s, r) => s + r.usd, 0);
  }

  async tokens(filter: Partial<Pick<UsageRecord, 'run' | 'cycle' | 'role'>> = {}): Promise<Usage> {
    const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const r of await this.load())
      if (
        (filter.run === undefined || r.run === filter.run) &&
        (filter.cycle === undefined || r.cycle === filter.cycle) &&
        (filter.role === undefined || r.role === filter.role)
      )
        for (const k of Object.keys(t) as (keyof Usage)[]) t[k] += r.usage[k];
    return t;
  }

  /** Throws a budget LlmError when the workspace's spending has reached the cap. */
  async ensureBudget(): Promise<void> {
    if (this.budgetUsd === undefined) return;
    const spent = await this.totalUsd();
    const usd = (x: number) => `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}`;
    if (spent >= this.budgetUsd)
      throw new LlmError('budget', `the USD budget is spent (${usd(spent)} of ${usd(this.budgetUsd)}); raise budgets.usd in satlution.yaml to continue`);
  }
}
