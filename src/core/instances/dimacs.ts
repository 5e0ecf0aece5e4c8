// DIMACS CNF as a stream: .cnf, .cnf.gz and .cnf.xz (detected by magic bytes, not by name), parsed
// byte by byte without building strings, so competition-size formulas check at disk speed, and literal
// by literal: memory does not grow with a clause's length. Every error names the file and the line.
// The one reading of a CNF file: the instance cache, the model check, the worker and the fetch from a
// GBD server (canonicalCnf.ts, in its strict mode) all parse with this parser.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

export class DimacsError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    /** What is wrong, without the file and line. */
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'DimacsError';
  }
}

export interface DimacsHeader {
  vars: number;
  clauses: number;
}

/** What a parse reports, as it goes; every part optional (a validation needs none). */
export interface ClauseSink {
  header?(h: DimacsHeader): void;
  /** One literal of the clause being read (never 0). */
  literal?(lit: number): void;
  /** The clause read since the last end, with `len` literals, ends on `line`. */
  clauseEnd?(len: number, line: number): void;
}

/**
 * Where the clauses go while they are read (canonicalCnf.ts): each literal as it was written, then a
 * space, which is GBD's normal form, and in `ends` the offset of each space that ends a clause (a
 * line break in the canonical file). `flush` empties `buf` up to `n` and `ends` up to `e`; it is
 * called before `buf` could overflow (`ends` holds a clause end for every two bytes of `buf`).
 */
export interface TokenEcho {
  buf: Buffer;
  n: number;
  ends: Int32Array;
  e: number;
  flush(): void;
}

/**
 * How strictly to read. Lenient (local sets): a SATLIB-style `%` line ends the formula and the rest is
 * ignored. Strict (a file from a server): a `%` line may only end the file (nothing but blanks after it)
 * and a literal cannot be written `-0`, as standard solvers read them.
 */
export interface DimacsOptions {
  strict?: boolean;
  /** The clauses' text, as read, to this echo (strict reading only: it bounds a number's digits). */
  echo?: TokenEcho;
}

/** What ends a number at the end of a file. */
const BLANK = new Uint8Array([32]);

/** A number of more digits than this is refused when reading strictly (2^31 - 1 has ten). */
const MAX_DIGITS = 10;

export interface DimacsSummary extends DimacsHeader {
  bytes: number;
  /** The formula contains the empty clause: UNSAT with nothing to prove. */
  emptyClause: boolean;
}

/** An xz file that needs more memory to decompress than it was allowed (its dictionary, as its headers ask). */
export class DecoderMemoryError extends Error {
  constructor(
    readonly file: string,
    readonly limitMiB: number,
  ) {
    super(`${file} needs more than ${limitMiB} MiB of memory to decompress: its headers ask for a dictionary that large`);
    this.name = 'DecoderMemoryError';
  }
}

/**
 * Opens a CNF file as a byte stream, decompressing gzip and xz. `done` settles when the source is
 * finished: for xz it rejects if the decompressor failed (its output alone cannot tell). With
 * `xzMemMiB`, xz may use at most that much memory: a file whose header asks for more (a dictionary
 * of GBs in a file of KBs) is refused before it is allocated, with a DecoderMemoryError.
 */
export async function openCnf(file: string, o: { xzMemMiB?: number } = {}): Promise<{ stream: Readable; done: Promise<void> }> {
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
    const limit = o.xzMemMiB === undefined ? [] : [`--memlimit-decompress=${Math.max(1, Math.floor(o.xzMemMiB))}MiB`];
    const xz = spawn('xz', ['-dc', ...limit, '--', file], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let err = '';
    xz.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const done = new Promise<void>((resolve, reject) => {
      xz.on('error', (e) => reject(new Error(`cannot run xz to read ${file}: ${e.message} (install xz-utils)`)));
      xz.on('close', (code) => {
        if (code === 0) return resolve();
        const said = err.trim();
        if (o.xzMemMiB !== undefined && /memory usage limit/i.test(said)) return reject(new DecoderMemoryError(file, Math.floor(o.xzMemMiB)));
        reject(new Error(`xz could not decompress ${file}: ${said || `exit ${code}`}`));
      });
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
  Percent, // a SATLIB-style '%' line
  Done, // after it: the rest is ignored (lenient) or must be blank (strict)
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
  private len = 0;
  private num = 0;
  private neg = false;
  private inNum = false;
  private digits = 0;
  private seenClauses = 0;
  /** The largest variable a literal named. */
  maxVar = 0;
  private emptyClause = false;
  /** The last chunk ended a line: an error found at the end then points at the line before. */
  private endedWithNewline = false;
  bytes = 0;

  private readonly literalSink: ((lit: number) => void) | undefined;
  private readonly endSink: ((len: number, line: number) => void) | undefined;

  constructor(
    private readonly file: string,
    private readonly sink: ClauseSink,
    private readonly options: DimacsOptions = {},
  ) {
    this.literalSink = sink.literal?.bind(sink);
    this.endSink = sink.clauseEnd?.bind(sink);
  }

  /** The line the parser is on. */
  get lineNumber(): number {
    return this.line;
  }

  private fail(msg: string): never {
    throw new DimacsError(this.file, this.line, msg);
  }

  push(buf: Uint8Array): void {
    this.bytes += buf.length;
    if (buf.length) this.endedWithNewline = buf[buf.length - 1] === 10;
    this.scan(buf);
  }

  /** Reads `buf` on from where the last chunk ended. */
  private scan(buf: Uint8Array): void {
    // The hot state in locals, written back at the end (and before anything that reads it).
    let state = this.state;
    let line = this.line;
    let num = this.num;
    let neg = this.neg;
    let inNum = this.inNum;
    let digits = this.digits;
    let len = this.len;
    let seen = this.seenClauses;
    let maxVar = this.maxVar;
    let vars = this.header?.vars ?? 0;
    let declaredClauses = this.header?.clauses ?? 0;
    const strict = this.options.strict === true;
    const echo = this.options.echo;
    let out = echo?.buf;
    let at = echo?.n ?? 0;
    let ends = echo?.ends;
    let ended = echo?.e ?? 0;
    const literalSink = this.literalSink;
    const endSink = this.endSink;
    const n = buf.length;
    for (let i = 0; i < n; i++) {
      let c = buf[i]!;
      if (state === S.Body) {
        if (c >= 48 && c <= 57) {
          // A number's digits in one run: most of a CNF's bytes are digits. Its bounds are checked
          // after the run (a number cut by the chunk's end, at each end): an echo's spare room holds
          // a number of too many digits until then. A loop for each case: the plain reading's stores nothing.
          inNum = true;
          const from = i;
          if (out) {
            for (;;) {
              num = num * 10 + (c - 48);
              out[at++] = c;
              if (++i === n) break;
              c = buf[i]!;
              if (c < 48 || c > 57) break;
            }
          } else {
            for (;;) {
              num = num * 10 + (c - 48);
              if (++i === n) break;
              c = buf[i]!;
              if (c < 48 || c > 57) break;
            }
          }
          digits += i - from;
          if (num > 2147483647) {
            this.line = line;
            this.fail('literal too large');
          }
          if (out && digits > MAX_DIGITS) {
            this.line = line;
            this.fail(`a number of more than ${MAX_DIGITS} digits`);
          }
          if (i === n) break;
        }
        if (inNum) {
          if (num === 0) {
            if (neg && strict) {
              this.line = line;
              this.fail('a literal written -0');
            }
            if (++seen > declaredClauses) {
              this.line = line;
              this.fail(`more clauses than the ${declaredClauses} the header declares`);
            }
            if (len === 0) this.emptyClause = true;
            endSink?.(len, line);
            len = 0;
          } else {
            if (num > vars) {
              this.line = line;
              this.fail(`literal ${neg ? -num : num} is out of range (the header declares ${vars} variables)`);
            }
            if (num > maxVar) maxVar = num;
            len++;
            literalSink?.(neg ? -num : num);
          }
          if (out) {
            if (num === 0) ends![ended++] = at;
            out[at++] = 32;
            if (at > out.length - 2 * MAX_DIGITS) {
              echo!.n = at;
              echo!.e = ended;
              echo!.flush();
              out = echo!.buf;
              at = echo!.n;
              ends = echo!.ends;
              ended = echo!.e;
            }
          }
          digits = 0;
          num = 0;
          neg = false;
          inNum = false;
        } else if (neg) {
          this.line = line;
          this.fail("'-' without a number");
        }
        if (c === 32) continue;
        if (c === 10) {
          line++;
          // a new line may start a comment or a '%' terminator
          if (i + 1 < n && (buf[i + 1] === 99 || buf[i + 1] === 37)) state = S.LineStart;
          continue;
        }
        if (c === 9 || c === 13) continue;
        if (c === 45) {
          if (neg) {
            this.line = line;
            this.fail("'-' without a number");
          }
          neg = true;
          if (out) out[at++] = c;
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
        } else if (c === 37) state = this.header ? S.Percent : S.Comment;
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
          // The header is read once, before any clause: the bounds for the rest of the loop.
          vars = this.header!.vars;
          declaredClauses = this.header!.clauses;
          line++;
          state = S.LineStart;
        } else {
          this.headerText += String.fromCharCode(c);
          if (this.headerText.length > 200) {
            this.line = line;
            this.fail('header line too long');
          }
        }
      } else if (state === S.Percent) {
        if (c === 10) {
          line++;
          state = S.Done;
        }
      } else {
        if (c === 10) line++;
        else if (strict && c !== 32 && c !== 9 && c !== 13) {
          this.line = line;
          this.fail("a '%' line before the end of the file (standard solvers read on, or refuse it)");
        }
      }
    }
    this.state = state;
    this.line = line;
    this.num = num;
    this.neg = neg;
    this.inNum = inNum;
    this.digits = digits;
    this.len = len;
    this.seenClauses = seen;
    this.maxVar = maxVar;
    if (echo) {
      echo.n = at;
      echo.e = ended;
    }
  }

  private parseHeader(): void {
    const m = /^p\s+cnf\s+(\d+)\s+(\d+)\s*$/.exec(this.headerText.trim());
    if (!m) this.fail(`bad header ${JSON.stringify(this.headerText.trim())}; expected "p cnf VARS CLAUSES"`);
    this.header = { vars: Number(m[1]), clauses: Number(m[2]) };
    this.sink.header?.(this.header);
  }

  end(): DimacsSummary {
    // Errors found at the end point at the last line that has content.
    if (this.endedWithNewline && this.line > 1) this.line--;
    if (this.state === S.Header) this.parseHeader();
    // A number that ends the file ends as if a blank followed it: the same checks, the same echo.
    if (this.inNum) this.scan(BLANK);
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
export async function readDimacs(file: string, sink: ClauseSink = {}, options: DimacsOptions = {}): Promise<DimacsSummary> {
  const parser = new DimacsParser(file, sink, options);
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
