// Solver output as a stream: the `s` line(s) and the `v` lines are parsed as the bytes arrive, the
// model going straight into a ModelBuilder; only a capped head and tail of the text are kept for logs.
import { ModelBuilder } from './modelCheck';

export type Answer = 'SAT' | 'UNSAT' | 'UNKNOWN';
const ANSWERS: Record<string, Answer> = { SATISFIABLE: 'SAT', UNSATISFIABLE: 'UNSAT', UNKNOWN: 'UNKNOWN' };

const enum L {
  Start,
  S,
  V,
  Other,
}

export class SolverOutputParser {
  readonly model: ModelBuilder;
  readonly answers: Answer[] = [];
  /** `s` lines that are not one of the three allowed answers. */
  readonly badSLines: string[] = [];
  bytes = 0;
  private state = L.Start;
  private sText = '';
  private num = 0;
  private neg = false;
  private inNum = false;
  private head = '';
  private tail = '';

  constructor(
    private readonly keepBytes = 8192,
    maxVar?: number,
  ) {
    this.model = new ModelBuilder(maxVar);
  }

  push(buf: Buffer): void {
    this.bytes += buf.length;
    if (this.head.length < this.keepBytes) this.head += buf.subarray(0, this.keepBytes - this.head.length).toString('latin1');
    this.tail = (this.tail + buf.subarray(Math.max(0, buf.length - this.keepBytes)).toString('latin1')).slice(-this.keepBytes);
    let state = this.state;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i]!;
      if (state === L.V) {
        if (c >= 48 && c <= 57) {
          this.num = this.num * 10 + (c - 48);
          this.inNum = true;
          continue;
        }
        this.flushNum();
        if (c === 45) this.neg = true;
        else if (c === 10) state = L.Start;
        continue;
      }
      if (c === 10) {
        if (state === L.S) this.finishS();
        state = L.Start;
        continue;
      }
      if (state === L.Start) state = c === 115 ? L.S : c === 118 ? L.V : L.Other;
      else if (state === L.S && this.sText.length < 64) this.sText += String.fromCharCode(c);
    }
    this.state = state;
  }

  end(): void {
    if (this.state === L.S) this.finishS();
    if (this.state === L.V) this.flushNum();
    this.state = L.Start;
  }

  private flushNum(): void {
    if (this.inNum) this.model.add(this.neg ? -this.num : this.num);
    this.num = 0;
    this.neg = false;
    this.inNum = false;
  }

  private finishS(): void {
    const word = this.sText.trim();
    const a = ANSWERS[word];
    if (a) this.answers.push(a);
    else this.badSLines.push(`s ${word}`);
    this.sText = '';
  }

  /** The first and last bytes of the output, for logs and failure details. */
  excerpt(): string {
    return this.bytes <= this.keepBytes ? this.tail : `${this.head}\n[... ${this.bytes - 2 * this.keepBytes} bytes omitted ...]\n${this.tail}`;
  }
}
