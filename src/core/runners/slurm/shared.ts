// The Slurm runner's shared work directory, seen from where sbatch runs: this machine (a plain
// directory) or a login node (over the SSH runner's control connection). Job records, task files
// and results all go through this, so the job logic is the same in both places.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { sshError, sshExec, type SshTarget } from '../ssh';
import { shJoin, shq } from '../shellQuote';
import type { CmdResult, SlurmExec } from './exec';

export interface SharedDir {
  /** Absolute path as the cluster sees it (sbatch --chdir). */
  readonly root: string;
  mkdirs(rels: readonly string[]): Promise<void>;
  /** Writes through a temporary file and a rename: readers never see half a file. */
  write(rel: string, text: string): Promise<void>;
  /** The file's text, or null when it does not exist. */
  read(rel: string): Promise<string | null>;
  remove(rel: string): Promise<void>;
  /** Removes a directory and everything below it (nothing there is not an error). */
  removeTree(rel: string): Promise<void>;
  /** File names in a directory ([] when it does not exist). */
  list(rel: string): Promise<string[]>;
  /** Texts of the existing, non-empty files among rels. */
  readMany(rels: readonly string[]): Promise<Map<string, string>>;
}

export function localDir(root: string): SharedDir {
  const at = (rel: string) => path.join(root, rel);
  return {
    root,
    async mkdirs(rels) {
      for (const r of rels) await fs.mkdir(at(r), { recursive: true });
    },
    async write(rel, text) {
      const tmp = `${at(rel)}.${process.pid}.tmp`;
      await fs.mkdir(path.dirname(tmp), { recursive: true });
      await fs.writeFile(tmp, text);
      await fs.rename(tmp, at(rel));
    },
    read: (rel) => fs.readFile(at(rel), 'utf8').catch(() => null),
    remove: (rel) => fs.rm(at(rel), { force: true }),
    removeTree: (rel) => fs.rm(at(rel), { recursive: true, force: true }),
    list: (rel) => fs.readdir(at(rel)).catch(() => []),
    async readMany(rels) {
      const out = new Map<string, string>();
      for (const r of rels) {
        const t = await fs.readFile(at(r), 'utf8').catch(() => '');
        if (t) out.set(r, t);
      }
      return out;
    },
  };
}

/** Record separator between files in one `cat` round trip (never in JSON text). */
const RS = '\u001e';
/** Paths per round trip: one remote command line stays far below Linux's 128 KiB per argument. */
const CHUNK = 500;

/** The workdir on a login node; `root` must already be absolute (see resolveRemoteRoot). */
export function sshDir(t: SshTarget, root: string): SharedDir {
  const run = async (script: string, what: string, stdin?: string) => {
    const r = await sshExec(t, `cd ${shq(root)} || exit 3\n${script}`, stdin === undefined ? {} : { stdin: Readable.from([stdin]) });
    if (r.code !== 0) throw sshError(t.host, r, what);
    return r.stdout;
  };
  return {
    root,
    async mkdirs(rels) {
      await run(`mkdir -p ${shJoin([...rels])}`, 'creating the work directories');
    },
    async write(rel, text) {
      await run(`mkdir -p "$(dirname ${shq(rel)})" && cat > ${shq(rel)}.$$.tmp && mv ${shq(rel)}.$$.tmp ${shq(rel)}`, `writing ${rel}`, text);
    },
    async read(rel) {
      const out = await run(`[ -f ${shq(rel)} ] || exit 0; printf x; cat ${shq(rel)}`, `reading ${rel}`);
      return out ? out.slice(1) : null;
    },
    async remove(rel) {
      await run(`rm -f ${shq(rel)}`, `removing ${rel}`);
    },
    async removeTree(rel) {
      await run(`rm -rf -- ${shq(rel)}`, `removing ${rel}`);
    },
    async list(rel) {
      const out = await run(`[ -d ${shq(rel)} ] && ls -1A ${shq(rel)}; true`, `listing ${rel}`);
      return out.split('\n').filter(Boolean);
    },
    async readMany(rels) {
      const out = new Map<string, string>();
      for (let i = 0; i < rels.length; i += CHUNK) {
        const text = await run(
          `for f in ${shJoin(rels.slice(i, i + CHUNK))}; do [ -s "$f" ] && { printf '${RS}%s\\n' "$f"; cat "$f"; }; done; true`,
          'reading results',
        );
        for (const part of text.split(RS).slice(1)) {
          const nl = part.indexOf('\n');
          if (nl > 0) out.set(part.slice(0, nl), part.slice(nl + 1));
        }
      }
      return out;
    },
  };
}

/** Slurm's commands run on the login node, each as one quoted command line. */
export function sshSlurmExec(t: SshTarget): SlurmExec {
  return async (argv): Promise<CmdResult> => {
    const r = await sshExec(t, shJoin([...argv]));
    // ssh's own failure (255) is not Slurm's answer: say it is the connection.
    if (r.code === 255) return { code: null, stdout: '', stderr: sshError(t.host, r, argv[0] ?? 'a Slurm command').message };
    // 127: the command is not on the login node's PATH for non-interactive sessions.
    return r.code === 127
      ? { code: null, stdout: r.stdout, stderr: `${argv[0]} not found on ${t.host} (is it on the PATH of non-interactive ssh sessions?)` }
      : r;
  };
}

/** The workdir as an absolute path on the login node, created if missing (`~/x` and relative paths are under the home). */
export async function resolveRemoteRoot(t: SshTarget, workdir: string, signal?: AbortSignal): Promise<string> {
  const rel = workdir.replace(/^~\/?/, '') || '.';
  const r = await sshExec(t, `mkdir -p ${shq(rel)} && cd ${shq(rel)} && pwd -P`, signal ? { signal } : {});
  if (r.code !== 0) throw sshError(t.host, r, `creating the workdir ${workdir}`);
  const root = r.stdout.trim().split('\n').pop() ?? '';
  if (!root.startsWith('/')) throw new Error(`could not resolve the workdir ${workdir} on ${t.host} (got "${root}")`);
  return root;
}
