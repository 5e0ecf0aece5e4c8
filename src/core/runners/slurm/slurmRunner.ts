// The Slurm runner: the candidate, the worker and the instances go into the shared workdir (copied
// on this machine, or synced to a login node over SSH), then one sbatch --array element per run.
// Each element runs the same worker as every other runner, so gates, result schema and metrics do
// not change with where the evaluation ran. The job records in the workdir make it resumable: a
// restarted CLI or VS Code re-attaches to the jobs still queued instead of submitting them again.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { z } from 'zod';
import type { SlurmRunnerSchema } from '../../config/schema';
import { findDratTrim } from '../../run/checkers';
import { wallBoundS } from '../../run/proof';
import type { RunBatch, Runner } from '../runner';
import type { SshTarget } from '../ssh';
import { nodeProblem, probeRemote, type RemoteFacts } from '../sshProbe';
import { probeIsolation } from '../../isolation/probe';
import { requireSandbox } from '../sandboxCheck';
import { syncToRemote, type Synced } from '../sshSync';
import { asTaskResult, checkArgs, remoteKeptProof, workerArgs } from '../remoteWorker';
import { randomBytes } from 'node:crypto';
import { HOLD_NAME, PROOFS_DIR } from '../../run/keptProof';
import { localExec, type SlurmExec } from './exec';
import { type Died, follow, type Progress, resultFile, submitOrAttach } from './job';
import { syncToLocalDir } from './localSync';
import { type ArrayOptions, timeLimitMinutes } from './script';
import { localDir, resolveRemoteRoot, type SharedDir, sshDir, sshSlurmExec } from './shared';

export type SlurmRunnerConfig = z.infer<typeof SlurmRunnerSchema>;

export interface SlurmRunnerOptions {
  config: SlurmRunnerConfig;
  /** dist/worker.js on this machine. */
  workerFile: string;
  /** Extra ssh options for the login node (e.g. ['-F', file]). */
  sshArgs?: readonly string[];
  /** Environment for local Slurm commands (SLURM_CONF...); default: this process's. */
  env?: NodeJS.ProcessEnv;
  pollMs?: number;
}

/** Where sbatch runs and how the workdir is reached from there. */
export interface SlurmSite {
  where: string;
  exec: SlurmExec;
  dir: SharedDir;
  /** Node.js, drat-trim, cores and disk at the submit host. */
  probe(): Promise<RemoteFacts>;
  /** Puts the worker, the instances and (for runs) the candidate into the workdir. */
  sync(what: SiteSync): Promise<Synced>;
}

/** What a batch needs in the workdir: its instances, and for runs the candidate (built there when the runner says so). */
interface SiteSync {
  instances: { hash: string; file: string }[];
  solver?: { dir: string; hash: string; buildTimeoutS?: number; isolation?: RunBatch['settings']['isolation'] };
}

/** A batch's runs as the workdir needs them. */
const runSync = (b: RunBatch): SiteSync => ({
  instances: b.tasks.map((x) => ({ hash: x.instanceHash, file: x.cnf })),
  solver: {
    dir: b.settings.solverDir,
    hash: b.solverHash,
    ...(b.buildTimeoutS ? { buildTimeoutS: b.buildTimeoutS } : {}),
    ...(b.settings.isolation ? { isolation: b.settings.isolation } : {}),
  },
});

export async function openSite(o: SlurmRunnerOptions, signal?: AbortSignal): Promise<SlurmSite> {
  const c = o.config;
  if (c.login_host) {
    const t: SshTarget = { host: c.login_host, ...(o.sshArgs ? { sshArgs: o.sshArgs } : {}) };
    const root = await resolveRemoteRoot(t, c.workdir, signal);
    return {
      where: `the login node ${c.login_host}`,
      exec: sshSlurmExec(t),
      dir: sshDir(t, root),
      probe: () => probeRemote(t, root, c.node, signal),
      sync: (w) =>
        syncToRemote(t, {
          workdir: root,
          workerFile: o.workerFile,
          ...(w.solver ? { solverDir: w.solver.dir, solverHash: w.solver.hash } : {}),
          instances: w.instances,
          ...(signal ? { signal } : {}),
          ...(c.build === 'remote' && w.solver ? { build: { timeoutS: w.solver.buildTimeoutS ?? 600, node: c.node, isolation: w.solver.isolation } } : {}),
        }),
    };
  }
  const root = path.resolve(c.workdir.replace(/^~(?=\/|$)/, os.homedir()));
  return {
    where: 'this machine',
    exec: localExec(o.env ?? process.env),
    dir: localDir(root),
    async probe() {
      const v = spawnSync(c.node, ['--version'], { encoding: 'utf8' });
      const node = v.status === 0 ? v.stdout.trim() : '';
      // The workdir may not exist before the first run: its nearest existing ancestor has the space.
      let at = root;
      while (
        !(await fs.stat(at).then(
          () => true,
          () => false,
        )) &&
        path.dirname(at) !== at
      )
        at = path.dirname(at);
      const st = await fs.statfs(at).catch(() => null);
      // The worker on the nodes uses the bwrap on its PATH (sandbox.bwrap and read_only are this machine's).
      const box = await probeIsolation({ mode: 'bwrap' });
      return {
        node,
        nodeMajor: Number(/^v(\d+)\./.exec(node)?.[1] ?? 0),
        dratTrim: findDratTrim(undefined) ?? '',
        cores: os.availableParallelism(),
        freeGb: st ? (st.bavail * st.bsize) / 2 ** 30 : null,
        sandbox: box,
      };
    },
    sync: (w) =>
      syncToLocalDir(root, {
        workerFile: o.workerFile,
        ...(w.solver ? { solverDir: w.solver.dir, solverHash: w.solver.hash } : {}),
        instances: w.instances,
        ...(signal ? { signal } : {}),
      }),
  };
}

export function slurmRunner(o: SlurmRunnerOptions): Runner {
  const c = o.config;
  return {
    name: c.name,
    async run(batch, onResult) {
      if (batch.tasks.length === 0) return;
      const say = batch.onStatus ?? (() => undefined);
      const site = await openSite(o, batch.signal);
      const v = await site.exec(['sbatch', '--version']);
      if (v.code !== 0)
        throw new Error(
          `sbatch does not run on ${site.where}: ${v.stderr.trim().split('\n').pop() ?? ''} (install the Slurm client there, or set the runner's login_host to a login node)`,
        );
      const facts = await site.probe();
      const bad = nodeProblem(facts, site.where, c.node);
      if (bad) throw new Error(`${bad}; the compute nodes need it too`);
      requireSandbox(batch.settings.isolation, facts.sandbox);
      // Proofs are checked on the compute node: drat-trim must be where the submit host has it.
      const dratTrim = c.login_host ? facts.dratTrim : (batch.settings.dratTrim ?? facts.dratTrim);
      if (batch.settings.checkProofs && !dratTrim)
        throw new Error(
          `drat-trim is not installed on ${site.where}, and this stage checks UNSAT proofs: build it on the shared filesystem (scripts/setup-sat-tools.sh) or put it on the PATH`,
        );
      say(`syncing to ${site.where}`);
      const synced = await site.sync(runSync(batch));
      const byKey = new Map(batch.tasks.map((t) => [t.key, t]));
      const b = {
        exec: site.exec,
        dir: site.dir,
        maxArray: c.max_array,
        tasks: batch.tasks.map((t) => ({
          key: t.key,
          args: workerArgs(batch.settings, t, { solver: synced.solver, cnf: synced.instance(t.instanceHash), dratTrim }),
        })),
        opts: {
          ...arrayOptions(c, site, synced, `satlution-${batch.solverHash.slice(0, 8)}`),
          // The worker itself and drat-trim live next to the solver under the same allocation.
          memMb: c.mem_mb ?? batch.settings.memMb + 512,
          timeLimitMin: timeLimitMinutes(batch.settings.timeoutS, batch.settings.checkProofs),
        },
      };
      batch.signal?.throwIfAborted();
      const a = await submitOrAttach(b);
      const attached = a.jobs.map((j) => j.id).filter((id) => !a.submitted.includes(id));
      say(
        [a.submitted.length ? `submitted job ${a.submitted.join(', ')}` : '', attached.length ? `re-attached to job ${attached.join(', ')}` : '']
          .filter(Boolean)
          .join('; ') || 'results were already there',
      );
      const died: Died[] = [];
      const finished = await follow(
        b,
        a,
        {
          onResult: (key, r) => {
            const task = byKey.get(key);
            return task ? onResult(task, asTaskResult(r, task)) : undefined;
          },
          onDied: (d) => void died.push(d),
          onProgress: (p) =>
            say(
              progressText(
                p,
                a.jobs.map((j) => j.id),
              ),
            ),
        },
        { pollMs: o.pollMs ?? 1000, ...(batch.signal ? { signal: batch.signal } : {}) },
      );
      if (!finished) return; // stopped: the jobs were scancel-ed
      if (died.length) {
        const list = died.slice(0, 5).map((d) => `${byKey.get(d.key)?.name ?? d.key} (job ${d.jobId}_${d.index}): ${d.reason}`);
        throw new Error(
          `${died.length} Slurm task${died.length > 1 ? 's' : ''} ended without a result: ${list.join('; ')}${died.length > 5 ? '; …' : ''}. Finished runs are stored; evaluate again to resubmit the others.`,
        );
      }
    },
    async checkKept(batch, onResult) {
      if (batch.tasks.length === 0) return;
      const site = await openSite(o, batch.signal);
      const facts = await site.probe();
      // The proofs are checked on a compute node, beside where their runs kept them.
      const dratTrim = c.login_host ? facts.dratTrim : (batch.dratTrim ?? facts.dratTrim);
      if (!dratTrim)
        throw new Error(
          `drat-trim is not installed on ${site.where}, and the proofs kept by this runner's runs need checking: build it on the shared filesystem (scripts/setup-sat-tools.sh) or put it on the PATH`,
        );
      const synced = await site.sync({ instances: batch.tasks.map((x) => ({ hash: x.instanceHash, file: x.cnf })) });
      // A check's task key is new each time: its result is never one kept from an earlier check of another proof.
      const tag = randomBytes(4).toString('hex');
      const byKey = new Map(batch.tasks.map((t) => [`${t.key}.check-${tag}`, t]));
      const b = {
        exec: site.exec,
        dir: site.dir,
        maxArray: c.max_array,
        tasks: [...byKey].map(([key, t]) => ({ key, args: checkArgs(batch, t, { cnf: synced.instance(t.instanceHash), dratTrim }) })),
        opts: {
          ...arrayOptions(c, site, synced, `satlution-check-${tag}`),
          memMb: c.mem_mb ?? Math.max(4096, 2 * batch.maxProofMb),
          timeLimitMin: timeLimitMinutes(wallBoundS(batch.checkerTimeoutS), false),
        },
      };
      batch.onStatus?.(`checking ${batch.tasks.length} kept proof${batch.tasks.length === 1 ? '' : 's'} on ${site.where}`);
      const a = await submitOrAttach(b);
      const died: Died[] = [];
      const finished = await follow(
        b,
        a,
        {
          onResult: (key, r) => {
            const t = byKey.get(key);
            return t
              ? onResult(t, asTaskResult(r, { name: t.name, family: t.result.family, expected: t.result.expected, expectedFrom: t.result.expected_from }))
              : undefined;
          },
          onDied: (d) => void died.push(d),
        },
        { pollMs: o.pollMs ?? 1000, ...(batch.signal ? { signal: batch.signal } : {}) },
      );
      for (const key of byKey.keys()) await site.dir.remove(resultFile(key)).catch(() => undefined);
      if (!finished) return;
      if (died.length)
        throw new Error(
          `${died.length} proof check${died.length > 1 ? 's' : ''} on Slurm ended without a verdict: ${died
            .slice(0, 5)
            .map((d) => `${byKey.get(d.key)?.name ?? d.key} (job ${d.jobId}_${d.index}): ${d.reason}`)
            .join('; ')}`,
        );
    },
    async release(hold, keys) {
      if (!HOLD_NAME.test(hold)) return;
      const site = await openSite(o);
      if (keys) for (const k of keys) await site.dir.remove(remoteKeptProof(hold, k));
      else await site.dir.removeTree(`${PROOFS_DIR}/${hold}`);
    },
  };
}

/** The array options every job of this runner shares; memory and time are the batch's. */
function arrayOptions(c: SlurmRunnerConfig, site: SlurmSite, synced: Synced, jobName: string): Omit<ArrayOptions, 'memMb' | 'timeLimitMin'> {
  return {
    jobName,
    workdir: site.dir.root,
    node: c.node,
    workerFile: synced.worker,
    ...(c.partition ? { partition: c.partition } : {}),
    ...(c.account ? { account: c.account } : {}),
    ...(c.qos ? { qos: c.qos } : {}),
    ...(c.array_throttle ? { throttle: c.array_throttle } : {}),
    cpusPerTask: c.cpus_per_task,
    extraArgs: c.sbatch_args,
  };
}

export function progressText(p: Progress, jobIds: readonly string[]): string {
  const parts = [
    `${p.done}/${p.total} done`,
    p.running ? `${p.running} running` : '',
    p.pending ? `${p.pending} queued` : '',
    p.died ? `${p.died} died` : '',
  ].filter(Boolean);
  return `Slurm job ${jobIds.join(', ')}: ${parts.join(', ')}`;
}
