// Git checkpoints of candidates, for workspaces that are git repositories. Checkpoints are commits on
// their own ref (refs/satlution/checkpoints), built with a private index file: the user's branch,
// index, staged changes and history are never touched. Build outputs are left out.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';

export const CHECKPOINT_REF = 'refs/satlution/checkpoints';

/** Paths never worth versioning: objects, archives, and bin/ except the run script. */
const BUILD_OUTPUT = /(\.(o|a|so|obj|lo|la|dylib|gcda|gcno)$)|(^|\/)bin\/(?!starexec_run_default$)[^/]+$/;
const MAX_FILE_BYTES = 20 << 20;

/** True when `dir` is inside a git work tree and not ignored by it (an ignored scratch workspace
 * inside some other project must not write checkpoints into that project). */
export async function isGitWorkspace(dir: string): Promise<boolean> {
  const git = simpleGit(dir);
  try {
    if ((await git.revparse(['--is-inside-work-tree'])).trim() !== 'true') return false;
  } catch {
    return false;
  }
  // check-ignore prints the path when it is ignored (its exit status does not reach us reliably).
  const ignored = await git.raw(['check-ignore', '--', '.']).catch(() => '');
  return ignored.trim() === '';
}

export interface Checkpoint {
  commit: string;
  files: number;
  skipped: number;
}

/** Commits the current content of `relDir` (e.g. SATLUTION_3) onto the checkpoint ref. */
export async function checkpointCandidate(workspaceDir: string, relDir: string, message: string): Promise<Checkpoint> {
  const top = (await simpleGit(workspaceDir).revparse(['--show-toplevel'])).trim();
  const tmpIndex = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-idx-')), 'index');
  const git = simpleGit(top).env({ ...plumbingEnv(), GIT_INDEX_FILE: tmpIndex });
  const pathInRepo = path.relative(top, path.join(workspaceDir, relDir)).split(path.sep).join('/');
  try {
    const parent = await resolveRef(git);
    if (parent) await git.raw(['read-tree', parent]);
    await git.raw(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', pathInRepo]);
    // Everything git would track (the user's .gitignore applies), minus build outputs and binaries.
    const listed = (await git.raw(['ls-files', '--others', '--cached', '--exclude-standard', '-z', '--', pathInRepo])).split('\0').filter(Boolean);
    const keep: string[] = [];
    for (const f of listed) if (!BUILD_OUTPUT.test(f) && !(await isBinaryArtifact(path.join(top, f)))) keep.push(f);
    if (keep.length) {
      const list = path.join(path.dirname(tmpIndex), 'paths');
      await fs.writeFile(list, keep.join('\0'));
      await git.raw(['--literal-pathspecs', 'add', '-f', `--pathspec-from-file=${list}`, '--pathspec-file-nul']);
    }
    const tree = (await git.raw(['write-tree'])).trim();
    const identity = await needsIdentity(git);
    const commit = (await git.raw([...identity, 'commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message])).trim();
    await git.raw(['update-ref', '-m', message, CHECKPOINT_REF, commit, parent ?? '']);
    return { commit, files: keep.length, skipped: listed.length - keep.length };
  } finally {
    await fs.rm(path.dirname(tmpIndex), { recursive: true, force: true });
  }
}

/**
 * The environment for plumbing commands, without variables that make git run other programs
 * (editors, pagers, askpass, ssh): none is needed here, and simple-git refuses them.
 */
function plumbingEnv(): Record<string, string> {
  const drop =
    /^(EDITOR|VISUAL|PAGER|GIT_EDITOR|GIT_PAGER|GIT_ASKPASS|SSH_ASKPASS|GIT_SSH|GIT_SSH_COMMAND|GIT_PROXY_COMMAND|GIT_EXTERNAL_DIFF|GIT_SEQUENCE_EDITOR|GIT_TEMPLATE_DIR|GIT_EXEC_PATH|GIT_CONFIG.*|PREFIX|GIT_INDEX_FILE)$/;
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !drop.test(e[0])));
}

async function resolveRef(git: SimpleGit): Promise<string | undefined> {
  try {
    return (await git.raw(['rev-parse', '--verify', '--quiet', CHECKPOINT_REF])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A fallback identity for machines with no git user configured (commit-tree refuses otherwise). */
async function needsIdentity(git: SimpleGit): Promise<string[]> {
  const has = async (k: string) => (await git.raw(['config', '--get', k]).catch(() => '')).trim() !== '';
  if ((await has('user.name')) && (await has('user.email'))) return [];
  return ['-c', 'user.name=SATLUTION', '-c', 'user.email=satlution@localhost'];
}

/**
 * ELF / Mach-O executables and very large files are build products, not source. Only regular files
 * are opened (a link git records as a link; opening a FIFO would block); anything else is left out.
 */
async function isBinaryArtifact(file: string): Promise<boolean> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (!st) return true; // vanished: nothing to version
  if (st.isSymbolicLink()) return false;
  if (!st.isFile()) return true;
  const fh = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW).catch(() => undefined);
  if (!fh) return true; // vanished or unreadable: nothing to version
  try {
    const st = await fh.stat();
    if (!st.isFile()) return false;
    if (st.size > MAX_FILE_BYTES) return true;
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    const magic = head.readUInt32BE(0);
    return magic === 0x7f454c46 || magic === 0xcffaedfe || magic === 0xcefaedfe || magic === 0xfeedfacf;
  } finally {
    await fh.close();
  }
}
