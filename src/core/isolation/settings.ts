// What isolation a run or a build gets: the kind of sandbox, its few knobs, and the processes and disk
// candidate code may use. Plain data, so it crosses to the worker on SSH hosts and Slurm nodes as
// command-line flags (ARCHITECTURE.md, "Isolation").
import { DEFAULT_DISK_MAX_MB, DEFAULT_PROCESSES_MAX } from '../config/schema';

/** `bwrap`: bubblewrap namespaces (the default); `off`: no sandbox, only a cleared environment. */
export type IsolationMode = 'bwrap' | 'off';

/** How candidate-controlled code is confined (builds, solver runs, objective functions). */
export interface IsolationSettings {
  mode: IsolationMode;
  /** Builds may reach the network (for build scripts that fetch); solver runs never may. */
  buildNetwork: boolean;
  /** Extra host paths visible read-only (a compiler under /opt, say). */
  readOnly: string[];
  /** The bubblewrap executable; default: `bwrap` on PATH. */
  bwrap?: string;
  /** What one build or run may use (evaluation.disk_max_mb, evaluation.processes_max); absent: the defaults. */
  limits?: ResourceLimits;
}

/** The processes and disk one build or one solver run may use, besides its time and memory. */
export interface ResourceLimits {
  /** MB a build may leave in its candidate directory (and write to any one file), and a run may write to its scratch. */
  diskMaxMb: number;
  /** Processes and threads alive at once. */
  processesMax: number;
}

/** The limits of evaluation's defaults, for work done without a configuration. */
export const DEFAULT_LIMITS: ResourceLimits = { diskMaxMb: DEFAULT_DISK_MAX_MB, processesMax: DEFAULT_PROCESSES_MAX };

/** The limits in force under `s`. */
export const limitsOf = (s: Pick<IsolationSettings, 'limits'>): ResourceLimits => s.limits ?? DEFAULT_LIMITS;

/** The default: a sandbox, no network, nothing extra visible. */
export const DEFAULT_ISOLATION: IsolationSettings = { mode: 'bwrap', buildNetwork: false, readOnly: [] };

/** Words for a person: what a result was measured under. */
export function isolationLabel(mode: IsolationMode): string {
  return mode === 'bwrap' ? 'isolated (bubblewrap)' : 'measured without isolation';
}

/** The part of satlution.yaml the resolver reads: the top-level `sandbox`, the runners' overrides, and the limits of `evaluation`. */
export interface SandboxConfigView {
  sandbox: OnOff | { mode: 'on' | 'off'; build_network: boolean; read_only: string[]; bwrap?: string | undefined };
  runners: readonly { name: string; sandbox?: OnOff | undefined }[];
  evaluation?: { disk_max_mb: number; processes_max: number };
}

/** How satlution.yaml may say on or off (YAML 1.1 readers write true/false). */
type OnOff = 'on' | 'off' | boolean;

const isOn = (v: OnOff) => v === 'on' || v === true;

/**
 * The isolation in force for `runnerName` (or for work done on this machine outside any runner,
 * such as the coder's build): the runner's `sandbox` if it sets one, else the workspace's; the
 * limits are the workspace's everywhere.
 */
export function isolationFor(c: SandboxConfigView, runnerName?: string): IsolationSettings {
  const top =
    typeof c.sandbox === 'object' ? c.sandbox : { mode: isOn(c.sandbox) ? ('on' as const) : ('off' as const), build_network: false, read_only: [] as string[] };
  const own = runnerName === undefined ? undefined : c.runners.find((r) => r.name === runnerName)?.sandbox;
  const on = isOn(own ?? top.mode);
  const limits = c.evaluation ? { limits: { diskMaxMb: c.evaluation.disk_max_mb, processesMax: c.evaluation.processes_max } } : {};
  return { mode: on ? 'bwrap' : 'off', buildNetwork: top.build_network, readOnly: [...top.read_only], ...(top.bwrap ? { bwrap: top.bwrap } : {}), ...limits };
}

/** Where a configuration runs anything without isolation: the workspace, or the runners that opt out. */
export function unisolated(c: SandboxConfigView): { workspace: boolean; runners: string[] } {
  const workspace = isolationFor(c).mode === 'off';
  return { workspace, runners: c.runners.filter((r) => isolationFor(c, r.name).mode === 'off').map((r) => r.name) };
}
