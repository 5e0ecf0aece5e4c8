// The canonical form of a CNF file, as the shared GBD cache keeps every instance: the clauses as the
// GBD hash reads them, one per line, under a header computed from them (`p cnf <largest variable>
// <clauses>`), without comments, plain (a run reads it in place: the evaluator's instance cache needs no
// decompressed copy of its own). It is a function of the hash alone: whatever a server
// sent under a hash (comments of any length, another header, other spacing), the file kept for it is
// the same, so no server can change what another workspace gets. The source is read once, by the
// harness's own parser in its strict mode (dimacs.ts): a file a standard solver would refuse is refused
// here with the reason, and the hash is taken of what that parser read, so the parser, the model check
// and the hash agree on what the file holds. Memory stays flat whatever a line's or a clause's length.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { DimacsError, DimacsParser, openCnf, type DimacsHeader, type TokenEcho } from './dimacs';

/** What the canonical form of a file holds. */
export interface CanonicalCnf {
  /** The GBD hash of the clauses read. */
  gbdHash: string;
  /** The header written: the largest variable used, and the clauses. */
  vars: number;
  clauses: number;
  /** Bytes of the canonical CNF (decompressed). */
  bytes: number;
}

/** How `src` may be read: at most `maxBytes` decompressed, xz with at most `xzMemMiB` of memory. */
export interface CanonicalRead {
  maxBytes: number;
  xzMemMiB?: number;
  signal?: AbortSignal;
}

/**
 * Writes the canonical form of `src` (.cnf, .gz or .xz) to `dest`; rejects with the parser's DimacsError
 * for a file it refuses, also one that decompresses to more than `maxBytes`.
 */
export async function writeCanonicalCnf(src: string, dest: string, o: CanonicalRead): Promise<CanonicalCnf> {
  try {
    const { clauseBytes, declaredVars, ...read } = await writeHeaderAndClauses(src, dest, o);
    const header = headerLine(read.vars, read.clauses);
    if (declaredVars !== read.vars) await replaceHeader(dest, headerLine(declaredVars, read.clauses).length, header, o.signal);
    return { ...read, bytes: clauseBytes + header.length };
  } catch (e) {
    await fs.rm(dest, { force: true });
    throw e;
  }
}

/** `p cnf VARS CLAUSES` and its line break (ASCII: its length is its bytes). */
const headerLine = (vars: number, clauses: number) => `p cnf ${vars} ${clauses}\n`;

/**
 * Reads `src` strictly and writes to `dest` the header it declares, then its clauses, one per line. The
 * strict reading holds the header's clause count to the clauses read, so only its variables can differ
 * from the header computed at the end (a header may name more than the clauses use): the caller then
 * replaces it. Returns the hash of the clauses as GBD normalises them, and the bytes of the clauses' lines.
 */
async function writeHeaderAndClauses(
  src: string,
  dest: string,
  o: CanonicalRead,
): Promise<Omit<CanonicalCnf, 'bytes'> & { clauseBytes: number; declaredVars: number }> {
  const { signal } = o;
  const out = new CanonicalOut();
  let declared: DimacsHeader | undefined;
  const parser = new DimacsParser(src, { header: (h) => (declared = h) }, { strict: true, echo: out });
  const sink = await fs.open(dest, 'w');
  let headerWritten = false;
  // Blocks of clauses follow the header in the file: it is written before the first of them.
  const write = async (blocks: Buffer[]) => {
    if (!headerWritten && declared) {
      await writeAll(sink, Buffer.from(headerLine(declared.vars, declared.clauses)));
      headerWritten = true;
    }
    for (const block of blocks) {
      await writeAll(sink, block);
      out.written(block);
    }
  };
  const { stream, done } = await openCnf(src, o.xzMemMiB === undefined ? {} : { xzMemMiB: o.xzMemMiB });
  try {
    for await (const chunk of stream) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
      parser.push(chunk as Buffer);
      if (parser.bytes > o.maxBytes)
        throw new DimacsError(src, parser.lineNumber, `it decompresses to more than ${(o.maxBytes / 1e6).toFixed(0)} MB (gbd.max_cnf_mb)`);
      const blocks = out.take();
      if (blocks.length) await write(blocks);
    }
    await done;
    const summary = parser.end();
    await write(out.take(true));
    await sink.close();
    return { gbdHash: out.digest(), vars: parser.maxVar, clauses: summary.clauses, clauseBytes: out.bytes, declaredVars: summary.vars };
  } catch (e) {
    stream.destroy();
    await sink.close().catch(() => undefined);
    throw e;
  }
}

/** All of `data` at the file's position (a write may take less than it is given). */
async function writeAll(fh: fs.FileHandle, data: Buffer): Promise<void> {
  for (let at = 0; at < data.length;) at += (await fh.write(data, at)).bytesWritten;
}

/** `file` with its first `oldLength` bytes (the declared header) replaced by `header`: through a copy beside it, renamed over it. */
async function replaceHeader(file: string, oldLength: number, header: string, signal: AbortSignal | undefined): Promise<void> {
  const tmp = `${file}.header`;
  try {
    await fs.writeFile(tmp, header);
    await pipeline(createReadStream(file, { start: oldLength }), createWriteStream(tmp, { flags: 'a' }), ...(signal ? [{ signal }] : []));
    await fs.rename(tmp, file);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/** Canonical text is handed on in blocks of this size. */
const BLOCK = 1 << 20;

/**
 * The parser's echo of the clauses and the GBD hash of them. The parser writes GBD's normal form (the
 * tokens joined by single spaces), which is hashed as it is; the spaces that end clauses then become
 * line breaks, and the block is canonical text, to be written. A written block's memory is used again.
 */
class CanonicalOut implements TokenEcho {
  buf: Buffer = newBlock();
  n = 0;
  ends = spareEnds.pop() ?? new Int32Array(BLOCK / 2);
  e = 0;
  private readonly full: Buffer[] = [];
  private readonly md5 = createHash('md5');
  /** The last block hashed ended with a token's space, left out: it is owed before the next token (none after the last). */
  private owed = false;
  bytes = 0;

  /** The full blocks since the last take, and with `all` the rest too: each to be written, then handed to `written`. */
  take(all = false): Buffer[] {
    if (all) this.flush();
    return this.full.splice(0);
  }

  /** A taken block, written: its memory is free again. */
  written(block: Buffer): void {
    freeBlock(Buffer.from(block.buffer, block.byteOffset, BLOCK));
  }

  /** The hash, once every block is written; the echo's memory is free again. */
  digest(): string {
    freeBlock(this.buf);
    if (spareEnds.length < SPARE) spareEnds.push(this.ends);
    return this.md5.digest('hex');
  }

  flush(): void {
    if (!this.n) return;
    const block = this.buf.subarray(0, this.n);
    if (this.owed) this.md5.update(SPACE);
    const last = block.length - 1;
    this.owed = block[last] === 0x20;
    this.md5.update(this.owed ? block.subarray(0, last) : block);
    const { ends, e } = this;
    for (let i = 0; i < e; i++) block[ends[i]!] = 0x0a;
    this.full.push(block);
    this.bytes += this.n;
    this.buf = newBlock();
    this.n = 0;
    this.e = 0;
  }
}

const SPACE = Buffer.from(' ');

/** Memory kept for the next echo (a fetch reads many files, a few at a time): at most this many of each. */
const SPARE = 8;
const spareBlocks: Buffer[] = [];
const spareEnds: Int32Array[] = [];
const newBlock = () => spareBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK);
const freeBlock = (block: Buffer) => void (spareBlocks.length < SPARE && spareBlocks.push(block));
