// Multiplier miters through berkeley-abc: an n-bit array multiplier (`gen -m`) against a copy that one
// of five abc optimisation scripts restructured. The two compute the same function, so the miter is
// UNSAT; it is hard for plain CDCL and easy with SAT sweeping (kissat's `sweep`), which makes it the
// family that catches a tuner switching sweeping off. The answer is still proved like every other.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCaptured } from '../run/captured';

/** The optimisation scripts, as the reference generators use them (index 1..5). */
export const MITER_SCRIPTS = [
  'strash; dc2; if -K 4; strash; dch; if -K 6; strash',
  'strash; balance; rewrite; refactor; balance; rewrite; rewrite -z; balance; refactor -z; rewrite -z; balance; if -K 6; strash',
  'strash; dch; if -K 3; strash; dc2; if -K 5; strash; balance',
  'strash; dc2; dch; if -K 6; mfs; strash; dc2',
  'strash; if -K 4; strash; rewrite; refactor; dch; if -K 6; strash; rewrite -z; balance',
] as const;

/** The CNF of the `bits`-bit multiplier miter under script `script` (1..5), made by abc. */
export async function multiplierMiter(abc: string, bits: number, script: number, signal?: AbortSignal): Promise<string> {
  const scr = MITER_SCRIPTS[script - 1];
  if (!scr || !Number.isInteger(bits) || bits < 2 || bits > 64)
    throw new Error(`no miter for ${bits} bits and script ${script} (bits 2..64, scripts 1..${MITER_SCRIPTS.length})`);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-miter-'));
  try {
    const [m, r, cnf] = ['m.blif', 'r.blif', 'miter.cnf'].map((f) => path.join(tmp, f)) as [string, string, string];
    // One abc command string (abc's own language, not a shell); the paths are ours, made above.
    const run = await runCaptured(abc, ['-q', `gen -m -N ${bits} ${m}; read ${m}; ${scr}; write_blif ${r}; miter ${m} ${r}; write_cnf ${cnf}`], {
      timeoutS: 120,
      keepBytes: 4000,
      ...(signal ? { signal } : {}),
    });
    if (run.spawnError) throw new Error(`cannot run berkeley-abc (${abc}): ${run.spawnError}; install the Debian package berkeley-abc`);
    const text = await fs.readFile(cnf, 'utf8').catch(() => undefined);
    if (!text) throw new Error(`berkeley-abc wrote no miter (exit ${run.code}${run.timedOut ? ', timed out' : ''}): ${run.output.trim().slice(-300)}`);
    return `c ${bits}-bit multiplier miter, abc script ${script}: ${scr}\n${text}`;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
