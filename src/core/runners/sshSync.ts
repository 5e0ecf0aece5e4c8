// Puts what a batch needs into the remote workdir, by content hash so nothing is sent twice:
//   worker-<hash>.js      the one-file worker bundle
//   solvers/<solverHash>/ the built candidate directory
//   instances/<hash>.cnf  each plain DIMACS instance
// User-chosen names never become remote paths. Each upload lands in a temporary name and is renamed,
// so a dropped connection leaves no half-written file that would later pass for a complete one.
import { limitArgs, WORKER_EXIT } from './remoteWorker';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { remoteDir, sshError, sshExec, type SshTarget } from './ssh';
import { shq } from './shellQuote';
import { listFiles } from '../workspace/candidateFs';
import type { IsolationSettings } from '../isolation/settings';

export interface SyncRequest {
  workdir: string;
  workerFile: string;
  /** The candidate to put there; absent when only the worker and instances are needed (checking kept proofs). */
  solverDir?: string;
  solverHash?: string;
  instances: { hash: string; file: string }[];
  signal?: AbortSignal;
  /** Build there from the sources (another OS or architecture) instead of using this machine's build, with the worker (so in its sandbox) run by `node`. */
  build?: { timeoutS: number; node: string; isolation?: IsolationSettings | undefined };
}

export interface Synced {
  worker: string;
  solver: string;
  instance: (hash: string) => string;
  uploaded: number;
}

export async function syncToRemote(t: SshTarget, req: SyncRequest): Promise<Synced> {
  const wd = remoteDir(req.workdir);
  const sig = req.signal ? { signal: req.signal } : {};
  const workerHash = createHash('sha256')
    .update(await fs.promises.readFile(req.workerFile))
    .digest('hex')
    .slice(0, 16);
  const worker = `worker-${workerHash}.js`;
  // A copy built there is kept apart from one built here: switching modes never mixes them.
  const solver = req.solverHash ? `solvers/${req.solverHash}${req.build ? '.remote' : ''}` : '';
  const instance = (h: string) => `instances/${h}.cnf`;
  const list = await sshExec(
    t,
    `mkdir -p ${wd}/instances ${wd}/solvers ${wd}/results ${wd}/running && cd ${wd} && for f in worker-*.js solvers/* instances/*; do [ -e "$f" ] && echo "$f"; done; true`,
    sig,
  );
  if (list.code !== 0) throw sshError(t.host, list, 'preparing the workdir');
  const have = new Set(list.stdout.split('\n'));
  let uploaded = 0;
  const upload = async (dest: string, stdin: Readable, unpack: boolean, what: string) => {
    const tmp = `${shq(dest)}.part-$$`; // dest is built from hashes only; $$ keeps concurrent uploads apart
    const script = unpack
      ? `cd ${wd} && rm -rf ${shq(dest)}.part-* && mkdir ${tmp} && tar -xf - -C ${tmp} && { mv ${tmp} ${shq(dest)} 2>/dev/null || rm -rf ${tmp}; }`
      : `cd ${wd} && cat > ${tmp} && mv ${tmp} ${shq(dest)}`;
    const r = await sshExec(t, script, { stdin, ...sig });
    if (r.code !== 0) throw sshError(t.host, r, `uploading ${what}`);
    uploaded++;
  };
  if (!have.has(worker)) await upload(worker, fs.createReadStream(req.workerFile), false, 'the worker');
  if (req.solverDir && solver && !have.has(solver)) {
    // To build there, only sources go: nothing compiled here can pass for up to date (see sourceFiles).
    const solverDir = req.solverDir;
    const list = req.build ? await sourceFiles(solverDir) : undefined;
    const tar = list
      ? spawn('tar', ['-c', '-f', '-', '-C', solverDir, '--null', '-T', '-'], { stdio: ['pipe', 'pipe', 'inherit'] })
      : spawn('tar', ['-c', '-f', '-', '-C', solverDir, '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    if (list) tar.stdin!.end(list.map((f) => `${f}\0`).join(''));
    const tarDone = new Promise<number | null>((res) => tar.on('close', res));
    await upload(solver, tar.stdout!, true, 'the candidate');
    if ((await tarDone) !== 0) throw new Error(`tar could not pack ${solverDir}`);
  }
  if (req.build && solver) await buildRemotely(t, wd, solver, worker, req.build, req.signal);
  const missing = [...new Map(req.instances.filter((i) => !have.has(instance(i.hash))).map((i) => [i.hash, i])).values()];
  if (missing.length) {
    // One tar stream for all missing instances (one round trip, not one per file): a local directory
    // of links named by hash, dereferenced by tar; unpacked aside, then each file renamed into place.
    const links = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'satlution-sync-'));
    try {
      for (const i of missing) await fs.promises.symlink(path.resolve(i.file), path.join(links, `${i.hash}.cnf`));
      const tar = spawn('tar', ['-c', '-h', '-f', '-', '-C', links, '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const tarDone = new Promise<number | null>((res) => tar.on('close', res));
      const r = await sshExec(
        t,
        `cd ${wd} && T=instances.part-$$ && rm -rf "$T" && mkdir "$T" && tar -xf - -C "$T" && for f in "$T"/*.cnf; do mv -f "$f" instances/; done && rm -rf "$T"`,
        { stdin: tar.stdout, ...sig },
      );
      if (r.code !== 0) throw sshError(t.host, r, `uploading ${missing.length} instance${missing.length > 1 ? 's' : ''}`);
      if ((await tarDone) !== 0) throw new Error('tar could not pack the instances');
      uploaded += missing.length;
    } finally {
      await fs.promises.rm(links, { recursive: true, force: true });
    }
  }
  return { worker, solver, instance, uploaded };
}

const BUILT = /(\.(o|a|so|dylib|lo|la|obj|gch|pch)$)|(^|\/)build\//;
const MAGIC = [
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]),
  Buffer.from([0xcf, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xce, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xca, 0xfe, 0xba, 0xbe]),
  Buffer.from('!<ar', 'latin1'),
];

/** The candidate without what a build made here: object files, build/, and executables or archives by their magic bytes. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of await listFiles(dir)) {
    if (BUILT.test(f)) continue;
    const head = Buffer.alloc(4);
    const fh = await fs.promises.open(path.join(dir, f), 'r');
    try {
      await fh.read(head, 0, 4, 0);
    } finally {
      await fh.close();
    }
    if (!MAGIC.some((m) => head.equals(m))) out.push(f);
  }
  return out;
}

/**
 * `bash starexec_build` in the synced candidate (sources only), once, by the worker, so the build is
 * sandboxed there as it is here: a marker file records success.
 */
async function buildRemotely(
  t: SshTarget,
  wd: string,
  solver: string,
  worker: string,
  b: NonNullable<SyncRequest['build']>,
  signal?: AbortSignal,
): Promise<void> {
  const rest = [
    `--timeout=${Math.ceil(b.timeoutS)}`,
    ...(b.isolation?.mode === 'off' ? ['--sandbox=off'] : []),
    ...(b.isolation?.buildNetwork ? ['--build-network'] : []),
    ...limitArgs(b.isolation),
  ];
  const script = [
    `cd ${wd} || exit 3`,
    'W=$PWD',
    `cd ${shq(solver)} || exit 3`,
    // The marker lies beside the copy, out of the build's reach: a build cannot forge "built" (nor touch through a link).
    `[ -f "$W"/${shq(`${solver}.built`)} ] && exit 0`,
    `${shq(b.node)} "$W"/${shq(worker)} --build="$PWD" ${rest.map(shq).join(' ')} && touch "$W"/${shq(`${solver}.built`)}`,
  ].join('\n');
  const r = await sshExec(t, script, signal ? { signal } : {});
  if (r.code === 0) return;
  if (r.code === WORKER_EXIT.buildTimeout) throw new Error(`the build on ${t.host} took longer than ${b.timeoutS} s (bash starexec_build)`);
  if (r.code === WORKER_EXIT.buildFailed)
    throw new Error(`the build on ${t.host} failed (bash starexec_build):\n${r.stderr.trim().split('\n').slice(-12).join('\n')}`);
  if (r.code === WORKER_EXIT.noIsolation) throw new Error(`cannot build on ${t.host}: ${r.stderr.replace(/^worker: /, '').trim()}`);
  throw sshError(t.host, r, 'building the candidate');
}
