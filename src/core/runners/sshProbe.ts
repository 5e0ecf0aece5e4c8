// What an SSH host offers the worker: Node's version, drat-trim, cores and free disk in the workdir.
// One round trip; the runner checks it before syncing anything and the health check reports it.
import { remoteDir, sshError, sshExec, type SshTarget } from './ssh';
import { shq } from './shellQuote';
import { bwrapBroken, bwrapMissing, PROBE_ARGS, type SandboxFacts } from '../isolation/probe';

/** The sandbox facts of the probe's output (`bwrap=`, `bwrapcode=`, `bwraperr=` lines). */
function remoteSandbox(kv: Map<string, string>, host: string): RemoteFacts['sandbox'] {
  const where = kv.get('host') ? `${host} (${kv.get('host')})` : host;
  if (!kv.get('bwrap')) return { ok: false, ...bwrapMissing(where) };
  const code = Number(kv.get('bwrapcode'));
  return code === 0 ? { ok: true } : { ok: false, ...bwrapBroken(where, kv.get('bwraperr') ?? '', Number.isFinite(code) ? code : null) };
}

export interface RemoteFacts {
  /** `node --version` output, '' when the configured node does not run. */
  node: string;
  nodeMajor: number;
  /** Path of drat-trim on the host, '' when none (PATH, or where scripts/setup-sat-tools.sh puts it). */
  dratTrim: string;
  cores: number;
  freeGb: number | null;
  /** Whether the worker can sandbox runs there: ok, or what is missing and how to fix it. */
  sandbox: SandboxFacts;
}

export const MIN_NODE = 18;

export async function probeRemote(t: SshTarget, workdir: string, node: string, signal?: AbortSignal): Promise<RemoteFacts> {
  const script = [
    `mkdir -p ${remoteDir(workdir)} && cd ${remoteDir(workdir)} || exit 3`,
    `echo "node=$(${shq(node)} --version 2>/dev/null)"`,
    `d=$(command -v drat-trim 2>/dev/null); [ -z "$d" ] && [ -x "$HOME/.cache/satlution-dev/bin/drat-trim" ] && d="$HOME/.cache/satlution-dev/bin/drat-trim"; echo "drat=$d"`,
    `echo "cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"`,
    `df -Pk . | awk 'NR==2 { print "freekb=" $4 }'`,
    `echo "host=$(hostname 2>/dev/null || uname -n)"`,
    `b=$(command -v bwrap 2>/dev/null); echo "bwrap=$b"`,
    `if [ -n "$b" ]; then e=$("$b" ${PROBE_ARGS.map(shq).join(' ')} 2>&1); echo "bwrapcode=$?"; echo "bwraperr=$(printf %s "$e" | tail -n 1)"; fi`,
  ].join('\n');
  const r = await sshExec(t, script, signal ? { signal } : {});
  if (r.code !== 0) throw sshError(t.host, r, `checking the host`);
  const kv = new Map(r.stdout.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()] as const));
  const nodeV = kv.get('node') ?? '';
  const freeKb = Number(kv.get('freekb'));
  return {
    node: nodeV,
    nodeMajor: Number(/^v(\d+)\./.exec(nodeV)?.[1] ?? 0),
    dratTrim: kv.get('drat') ?? '',
    cores: Number(kv.get('cores')) || 1,
    freeGb: Number.isFinite(freeKb) ? freeKb / 2 ** 20 : null,
    sandbox: remoteSandbox(kv, t.host),
  };
}

/** Why the worker cannot run on the host, or undefined when it can. */
export function nodeProblem(f: RemoteFacts, host: string, node: string): string | undefined {
  if (!f.node) return `Node.js ("${node}") does not run on ${host}: install Node.js ${MIN_NODE} or later there, or set the runner's node to its path`;
  if (f.nodeMajor < MIN_NODE)
    return `Node.js on ${host} is ${f.node}; the worker needs ${MIN_NODE} or later (install a newer one, or set the runner's node to its path)`;
  return undefined;
}
