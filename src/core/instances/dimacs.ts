// DIMACS CNF as a stream: .cnf, .cnf.gz and .cnf.xz (detected by magic bytes, not by name), parsed
// byte by byte without building strings, so competition-size formulas check at disk speed. Every
// error names the file and the line.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

export class DimacsError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'DimacsError';
  }
}

export interface DimacsHeader {
  vars: number;
  clauses: number;
}

export interface ClauseSink {
  header?(h: DimacsHeader): void;
  /** `lits[0..len)` is one clause (without its terminating 0); `line` is where it ends. */
  clause(lits: Int32Array, len: number, line: number): void;
}

export interface DimacsSummary extends DimacsHeader {
  bytes: number;
  /** The formula contains the empty clause: UNSAT with nothing to prove. */
  emptyClause: boolean;
}

/**
 * Opens a CNF file as a byte stream, decompressing gzip and xz. `done` settles when the source is
 * finished: for xz it rejects if the decompressor failed (its output alone cannot tell).
 */
export async function openCnf(file: string): Promise<{ stream: Readable; done: Promise<void> }> {
  const fh = await fs.promises.open(file, 'r');
  const magic = Buffer.alloc(6);
  try {
    await fh.read(magic, 0, 6, 0);
  } finally {
    await fh.close();
  }
  const plain = () => fs.createReadStream(file, { highWaterMark: 1 << 20 });
  if (magic[0] === 0x1f && magic[1] === 0x8b) return { stream: plain().pipe(zlib.createGunzip({ chunkSize: 1 << 20 })), done: Promise.resolve() };
  if (magic.equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) {
    // xz has no decoder in Node; the system's xz streams it (Debian: xz-utils).
    const xz = spawn('xz', ['-dc', '--', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    xz.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const done = new Promise<void>((resolve, reject) => {
      xz.on('error', (e) => reject(new Error(`cannot run xz to read ${file}: ${e.message} (install xz-utils)`)));
      xz.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`xz could not decompress ${file}: ${err.trim() || `exit ${code}`}`))));
    });
    done.catch(() => undefined); // observed by the reader; never an unhandled rejection
    return { stream: xz.stdout, done };
  }
  return { stream: plain(), done: Promise.resolve() };
}

const enum S {
  LineStart,
  Comment,
  Header,
  Body,
  Done, // after a SATLIB-style '%' line: the rest is ignored
}

/**
 * An incremental DIMACS parser: feed it chunks, then `end()`. Kept separate from the I/O so the
 * same code parses files, pipes and solver output.
 */
export class DimacsParser {
  private state = S.LineStart;
  private line = 1;
  private headerText = '';
  private header: DimacsHeader | undefined;
  private lits = new Int32Array(1024);
  private len = 0;
  private num = 0;
  private neg = false;
  private inNum = false;
  private seenClauses = 0;
  private emptyClause = false;
  bytes = 0;

  constructor(
    private readonly file: string,
    private readonly sink: ClauseSink,
  ) {}

  private fail(msg: string): never {
    throw new DimacsError(this.file, this.line, msg);
  }

  private endedWithNewline = false;

  push(buf: Uint8Array): void {
    this.bytes += buf.length;
    if (buf.length) this.endedWithNewline = buf[buf.length - 1] === 10;
    let state = this.state;
    let line = this.line;
    let num = this.num;
    let neg = this.neg;
    let inNum = this.inNum;
    const n = buf.length;
    for (let i = 0; i < n; i++) {
      const c = buf[i]!;
      if (state === S.Body) {
        if (c >= 48 && c <= 57) {
          num = num * 10 + (c - 48);
          inNum = true;
          if (num > 2147483647) {
            this.line = line;
            this.fail('literal too large');
          }
          continue;
        }
        if (inNum) {
          this.state = state;
          this.line = line;
          this.literal(neg ? -num : num);
          num = 0;
          neg = false;
          inNum = false;
        } else if (neg) {
          this.line = line;
          this.fail("'-' without a number");
        }
        if (c === 10) {
          line++;
          // a new line may start a comment or a '%' terminator
          if (i + 1 < n && (buf[i + 1] === 99 || buf[i + 1] === 37)) state = S.LineStart;
          continue;
        }
        if (c === 32 || c === 9 || c === 13) continue;
        if (c === 45) {
          neg = true;
          continue;
        }
        if (c === 99 || c === 37) {
          // 'c' or '%' after whitespace at the start of a line (the chunk boundary case)
          state = S.LineStart;
          i--;
          continue;
        }
        this.line = line;
        this.fail(`unexpected character ${JSON.stringify(String.fromCharCode(c))}`);
      } else if (state === S.LineStart) {
        if (c === 99) state = S.Comment;
        else if (c === 112) {
          if (this.header) {
            this.line = line;
            this.fail('a second "p cnf" header');
          }
          state = S.Header;
          this.headerText = 'p';
        } else if (c === 37) state = this.header ? S.Done : S.Comment;
        else if (c === 10) line++;
        else if (c === 32 || c === 9 || c === 13) continue;
        else {
          if (!this.header) {
            this.line = line;
            this.fail('clauses before the "p cnf VARS CLAUSES" header');
          }
          state = S.Body;
          i--;
        }
      } else if (state === S.Comment) {
        if (c === 10) {
          line++;
          state = S.LineStart;
        }
      } else if (state === S.Header) {
        if (c === 10) {
          this.line = line;
          this.parseHeader();
          line++;
          state = S.LineStart;
        } else {
          this.headerText += String.fromCharCode(c);
          if (this.headerText.length > 200) {
            this.line = line;
            this.fail('header line too long');
          }
        }
      } else {
        if (c === 10) line++;
      }
    }
    this.state = state;
    this.line = line;
    this.num = num;
    this.neg = neg;
    this.inNum = inNum;
  }

  private parseHeader(): void {
    const m = /^p\s+cnf\s+(\d+)\s+(\d+)\s*$/.exec(this.headerText.trim());
    if (!m) this.fail(`bad header ${JSON.stringify(this.headerText.trim())}; expected "p cnf VARS CLAUSES"`);
    this.header = { vars: Number(m[1]), clauses: Number(m[2]) };
    this.sink.header?.(this.header);
  }

  private literal(l: number): void {
    if (l === 0) {
      this.seenClauses++;
      if (this.seenClauses > this.header!.clauses) this.fail(`more clauses than the ${this.header!.clauses} the header declares`);
      if (this.len === 0) this.emptyClause = true;
      this.sink.clause(this.lits, this.len, this.line);
      this.len = 0;
      return;
    }
    if ((l < 0 ? -l : l) > this.header!.vars) this.fail(`literal ${l} is out of range (the header declares ${this.header!.vars} variables)`);
    if (this.len === this.lits.length) {
      const bigger = new Int32Array(this.lits.length * 2);
      bigger.set(this.lits);
      this.lits = bigger;
    }
    this.lits[this.len++] = l;
  }

  end(): DimacsSummary {
    // Errors found at the end point at the last line that has content.
    if (this.endedWithNewline && this.line > 1) this.line--;
    if (this.state === S.Header) this.parseHeader();
    if (this.inNum) {
      this.literal(this.neg ? -this.num : this.num);
      this.inNum = false;
    }
    if (!this.header) this.fail('no "p cnf VARS CLAUSES" header (empty or not a DIMACS file)');
    if (this.len > 0) this.fail('truncated: the last clause has no terminating 0');
    if (this.seenClauses !== this.header.clauses)
      this.fail(
        `the header declares ${this.header.clauses} clauses but the file has ${this.seenClauses}${this.seenClauses < this.header.clauses ? ' (truncated?)' : ''}`,
      );
    return { ...this.header, bytes: this.bytes, emptyClause: this.emptyClause };
  }
}

/** Streams a CNF file through `sink`; rejects with a DimacsError for malformed input. */
export async function readDimacs(file: string, sink: ClauseSink): Promise<DimacsSummary> {
  const parser = new DimacsParser(file, sink);
  const { stream, done } = await openCnf(file);
  try {
    for await (const chunk of stream) parser.push(chunk as Buffer);
    await done;
  } catch (e) {
    stream.destroy();
    if (e instanceof DimacsError) throw e;
    throw new Error(`cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parser.end();
}
