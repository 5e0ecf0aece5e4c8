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
import { DimacsError, DimacsParser, openCnf, type TokenEcho } from './dimacs';

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

/**
 * Writes the canonical form of `src` (.cnf, .gz or .xz) to `dest`; rejects with the parser's DimacsError
 * for a file it refuses, also one that decompresses to more than `maxBytes`.
 */
export async function writeCanonicalCnf(src: string, dest: string, o: { maxBytes: number; signal?: AbortSignal }): Promise<CanonicalCnf> {
  const { signal } = o;
  const body = `${dest}.body`;
  try {
    const read = await canonicalBody(src, body, o);
    // The header is known only at the end: it goes first, the body after it.
    const header = `p cnf ${read.vars} ${read.clauses}\n`;
    await fs.writeFile(dest, header);
    await pipeline(createReadStream(body), createWriteStream(dest, { flags: 'a' }), ...(signal ? [{ signal }] : []));
    return { ...read, bytes: read.bytes + Buffer.byteLength(header) };
  } catch (e) {
    await fs.rm(dest, { force: true });
    throw e;
  } finally {
    await fs.rm(body, { force: true });
  }
}

/** Reads `src` strictly and writes its clauses, one per line, to `body`; the hash of the clauses as GBD normalises them. */
async function canonicalBody(src: string, body: string, o: { maxBytes: number; signal?: AbortSignal }): Promise<CanonicalCnf> {
  const { signal } = o;
  const out = new CanonicalOut();
  const parser = new DimacsParser(src, {}, { strict: true, echo: out });
  const sink = await fs.open(body, 'w');
  const { stream, done } = await openCnf(src);
  try {
    for await (const chunk of stream) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
      parser.push(chunk as Buffer);
      if (parser.bytes > o.maxBytes)
        throw new DimacsError(src, parser.lineNumber, `it decompresses to more than ${(o.maxBytes / 1e6).toFixed(0)} MB (gbd.max_cnf_mb)`);
      for (const block of out.take()) await sink.write(block);
    }
    await done;
    const summary = parser.end();
    for (const block of out.take(true)) await sink.write(block);
    await sink.close();
    return { gbdHash: out.digest(), vars: parser.maxVar, clauses: summary.clauses, bytes: out.bytes };
  } catch (e) {
    stream.destroy();
    await sink.close().catch(() => undefined);
    throw e;
  }
}

/** Canonical text is handed on in blocks of this size. */
const BLOCK = 4 << 20;

/** The parser's echo of the clauses (canonical text), in blocks, and the GBD hash of them (their tokens joined by single spaces). */
class CanonicalOut implements TokenEcho {
  buf = Buffer.allocUnsafe(BLOCK);
  n = 0;
  private readonly blocks: Buffer[] = [];
  private readonly md5 = createHash('md5');
  /** The last byte hashed so far was a clause's end: a space is owed before the next token. */
  private owed = false;
  bytes = 0;

  /** The full blocks since the last take, and with `all` the rest too. */
  take(all = false): Buffer[] {
    if (all) this.flush();
    return this.blocks.splice(0);
  }

  digest(): string {
    this.flush();
    return this.md5.digest('hex');
  }

  flush(): void {
    if (!this.n) return;
    const text = this.buf.subarray(0, this.n);
    this.buf = Buffer.allocUnsafe(BLOCK);
    this.n = 0;
    this.bytes += text.length;
    this.blocks.push(text);
    // GBD's normal form: the same tokens, each line break a space, none after the last token.
    const norm = Buffer.from(text);
    for (let i = norm.indexOf(0x0a); i >= 0; i = norm.indexOf(0x0a, i + 1)) norm[i] = 0x20;
    if (this.owed) this.md5.update(SPACE);
    const last = norm.length - 1;
    this.owed = norm[last] === 0x20;
    this.md5.update(this.owed ? norm.subarray(0, last) : norm);
  }
}

const SPACE = Buffer.from(' ');
