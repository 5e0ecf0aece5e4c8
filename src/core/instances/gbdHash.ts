// The GBD hash: how the Global Benchmark Database (and the SAT Competition's track lists) name an
// instance. An MD5 over a normalised byte stream of the decompressed CNF: comment and header lines
// dropped, every run of blanks and line breaks one space, and a clause delimiter " 0" added when the
// last token is not a lone 0. So reformatting, comments and the header do not change the name.
import { createHash, type Hash } from 'node:crypto';
import { openCnf } from './dimacs';

/** A GBD hash: 32 lower-case hex digits. */
export const GBD_HASH = /^[0-9a-f]{32}$/;

/** The GBD hash, fed chunk by chunk (`update`), read once at the end (`digest`). */
export class GbdHasher {
  private readonly md5: Hash = createHash('md5');
  /** Inside a comment or header line (or after any other non-numeric byte): left out to the line's end. */
  private skip = false;
  /** A separator is pending: one space goes out before the next hashed byte. */
  private space = false;
  /** Nothing hashed yet (leading blanks make no separator). */
  private start = true;
  /** The last byte hashed is a `0` that began its token (a clause's end); true for an empty formula. */
  private cldelim = true;
  private readonly out = Buffer.alloc(1 << 16);
  private n = 0;

  update(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (!this.skip && ((c >= 0x30 && c <= 0x39) || c === 0x2d)) {
        this.cldelim = c === 0x30 && (this.space || this.start);
        this.start = false;
        if (this.space) {
          this.space = false;
          this.emit(0x20);
        }
        this.emit(c);
      } else if (c <= 0x20) {
        this.space = !this.start;
        if (c === 0x0a || c === 0x0d) this.skip = false;
      } else {
        this.skip = true;
      }
    }
  }

  digest(): string {
    if (!this.cldelim) {
      this.emit(0x20);
      this.emit(0x30);
    }
    this.flush();
    return this.md5.digest('hex');
  }

  private emit(c: number): void {
    this.out[this.n++] = c;
    if (this.n === this.out.length) this.flush();
  }

  private flush(): void {
    if (this.n) this.md5.update(this.out.subarray(0, this.n));
    this.n = 0;
  }
}

/** The GBD hash of a CNF file (.cnf, .cnf.gz or .cnf.xz, by its magic bytes), streamed. */
export async function gbdHashOfFile(file: string): Promise<string> {
  const { stream, done } = await openCnf(file);
  const h = new GbdHasher();
  for await (const chunk of stream) h.update(chunk as Buffer);
  await done;
  return h.digest();
}
