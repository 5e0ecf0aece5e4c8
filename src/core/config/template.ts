// The satlution.yaml that `init` writes: every section present and commented, so a person can see what
// can be set without opening the docs. A unit test checks it parses to the schema's defaults.
import { stringify } from 'yaml';
import type { SeedConfig } from './schema';

export interface TemplateInput {
  seeds: Pick<SeedConfig, 'name' | 'source' | 'primary' | 'binary'>[];
  benchmarks: Record<string, string>;
  jobs: number;
}

export function renderConfig(t: TemplateInput): string {
  const seeds = stringify(
    t.seeds.map((s) => ({ name: s.name, source: s.source, ...(s.primary ? { primary: true } : {}), ...(s.binary ? { binary: s.binary } : {}) })),
  )
    .trimEnd()
    .replace(/^/gm, '  ');
  const benches = Object.entries(t.benchmarks)
    .map(([k, v]) => `  ${k}: ${stringify(v).trim()}`)
    .join('\n');
  return `# SATLUTION project configuration. Every key is optional unless marked required;
# the values shown are the defaults. Docs: docs/configuration.md.
version: 1

# Baseline solvers (required). Each was imported into seeds/<name>/ (read-only); the primary one
# was copied to SATLUTION_0/, the first champion.
seeds:
${seeds}

# Benchmark sets: name -> directory of .cnf / .cnf.gz / .cnf.xz files and an optional meta.csv
# with columns instance,family,expected (expected = SAT, UNSAT or empty) and an optional proved column
# (how the answer was proved; without it an answer is a claim, which a proof can overrule).
benchmarks:
${benches}
# SAT Competition sets by GBD query (satlution benchmarks fetch), kept in a cache all workspaces share:
# gbd: { server: https://benchmark-database.de, jobs: 4, max_mb: 4096 }   # cache: default ~/.cache/satlution/gbd

# The gates, cheapest first. A wrong answer in any stage fails the candidate, whatever its speed.
stages:
  smoke:  { set: smoke,  timeout_s: 10,  mem_mb: 2048, runner: local, check_proofs: true }   # build + quick screen
  verify: { set: verify, timeout_s: 60,  mem_mb: 4096, runner: local, check_proofs: true }   # models and proofs checked
  perf:   { set: perf,   timeout_s: 300, mem_mb: 8192, runner: local, check_proofs: false }  # PAR-2 is measured here
# Multi-fidelity: cheaper tiers (a fixed share of perf, a shorter timeout) a candidate must rank well in
# first, and a held-out set a new champion must not be slower on. Add to the perf line above, e.g.:
#   tiers: [{ fraction: 0.25, timeout_s: 60, promote_top: 0.5 }, { fraction: 0.5, timeout_s: 150, promote_top: 0.2 }], holdout: held
# perf checks no proofs while it runs, but every UNSAT answer must come with the proof its own run
# wrote, kept until the decisions are made: a random sample of them, and the UNSAT answers a winner's
# promotion rests on, are checked by drat-trim; a lie caught fails perf, an unproved answer is unsolved.
# The default, on the perf line:
#   audit: { min: 3, share: 0.1 }     # at least 3, or 10% of the UNSAT answers; { min: 0, share: 0 } turns it off

# How answers are checked. SAT models are always checked against the formula.
evaluation:
  proof_max_mb: 2048        # one run's DRAT proof; a run whose proof grows past it is stopped (unsolved)
  build_timeout_s: 600
  output_max_mb: 256        # more output than this stops the run (counted as a crash)
  disk_max_mb: 1024         # a build's candidate directory, any file it writes, a run's scratch (HOME, TMPDIR, /tmp); more fails it
  processes_max: 256        # processes and threads at once in one build or one run; reaching it fails the build or run
  vacuous_gates: fail       # a stage with no instances, or a verify stage that could check no answer, fails (warn: passes with a warning)
  decide_on: cpu            # promotions are decided on CPU time, which other load moves far less; PAR-2 is reported on wall time
  rank_by: par2             # or solved-then-par2: solved instances first, as the SAT Competition ranks
#  racing: { enabled: true, cap_factor: 3 }  # the race: challengers beside the champion, each dropped once it cannot pass the promotion test
#  families: { veto: true, tolerance_pct: 5, min_instances: 4, error: 0.2 }  # no family (meta.csv) may be more than 5% slower under a promoted challenger
#  drat_trim: /path/to/drat-trim      # default: scripts/setup-sat-tools.sh's build, or drat-trim on PATH
#  checker_timeout_s: 900             # default: 3x the stage timeout; the cap of every proof check
#  checker: { time_factor: 10, time_min_s: 10, mem_mb: 8192, proof_mb_per_s: 64, proof_min_mb: 64 }  # each check's bounds, relative to its run's solving time; a breach leaves the answer unsolved
#  scratch_dir: /scratch/me/tmp       # where proofs are written during runs and kept for the audits

# Evolved code runs in a bubblewrap sandbox: a build sees only its candidate, a solver run only its
# solver and instance; no network, no $HOME, no API keys. off runs it with your full authority (every
# result is then marked "measured without isolation"); a runner can override it with its own sandbox: off.
sandbox: on
#  sandbox: { mode: on, build_network: true }   # for build scripts that fetch

# Where solver runs execute. Add an SSH host or a Slurm cluster and name it in a stage's runner:
#   - { name: workstation, kind: ssh, host: my-ssh-alias, jobs: 16 }
#   - { name: cluster, kind: slurm, login_host: login, workdir: /scratch/me/satlution, partition: compute }
runners:
  - { name: local, kind: local, jobs: ${t.jobs} }

# Models per role. API keys: "SATLUTION: Set API Key" in VS Code, or the variable named by
# api_key_env for the CLI. Without models, cycles use the offline tuner agent.
models: {}
#  planner: { provider: anthropic, model: <model id>, api_key_env: ANTHROPIC_API_KEY }
#  coder:   { provider: openai, model: <model id>, api_key_env: OPENAI_API_KEY }
#  judge:   { provider: openai-compatible, model: <model id>, base_url: http://localhost:11434/v1 }

# A challenger replaces the champion only if correct, significantly faster in its race with the
# champion in expected PAR-2 against its session's run noise (at alpha / 2, at most 0.5%, shared by the
# race's challengers), and at least min_improvement_pct percent lower in PAR-2 at 80% confidence. sift makes several proposals per cycle,
# has a judge model score each plan and diff, and evaluates only the best (needs models.judge):
#   strategy: { name: sift, proposals: 4, evaluate_top: 1 }
# islands keeps a MAP-Elites database on several islands; smc moves a population by annealed
# Metropolis-Hastings steps:
#   strategy: { name: islands, islands: { count: 5, population: 70, archive: 25 } }
#   strategy: { name: smc, smc: { particles: 4, mh_steps: 2 } }
strategy: { name: champion-challenger, min_improvement_pct: 5, alpha: 0.05 }

# manual: approve every step; semi: approve each plan before coding; auto: unattended.
approval: semi

# Stop cleanly when either is reached (remove a key for no cap).
budgets: {}
#  usd: 25
#  cpu_hours: 50

# Hide PAR-2 from the agents until this cycle (0 = always visible).
par2_visible_from_cycle: 0
`;
}
