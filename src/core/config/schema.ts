// The satlution.yaml schema. Every key carries a description and an example (zod `.meta`), which the
// loader uses to explain validation errors and the build exports as JSON Schema for editors.
import * as path from 'node:path';
import { z } from 'zod';
import { StrategySchema } from './strategySchema';

export {
  DEFAULT_ISLANDS,
  DEFAULT_SMC,
  IslandsSchema,
  SmcSchema,
  StrategySchema,
  type IslandsConfig,
  type SmcConfig,
  type StrategyConfig,
} from './strategySchema';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const name = (what: string, example: string) =>
  z
    .string()
    .regex(NAME_RE, `must be a ${what} name of letters, digits, '.', '_' or '-'`)
    .meta({
      description: `${what} name (letters, digits, '.', '_', '-')`,
      examples: [example],
    });

export const SeedSchema = z
  .object({
    name: name('seed', 'kissat'),
    source: z
      .string()
      .min(1)
      .meta({
        description: 'Where the seed was imported from: a directory or a git URL (kept for provenance).',
        examples: ['../solvers/kissat'],
      }),
    primary: z
      .boolean()
      .default(false)
      .meta({
        description: 'The seed that becomes SATLUTION_0, the first champion. Defaults to the first seed.',
        examples: [true],
      }),
    binary: z
      .string()
      .regex(NAME_RE)
      .optional()
      .meta({
        description: 'File name of the solver binary that starexec_build puts into bin/ (defaults to the seed name).',
        examples: ['kissat'],
      }),
  })
  .strict();

/** Where `satlution benchmarks fetch` takes SAT Competition instances from: a GBD server and the shared cache. */
export const GbdSchema = z
  .object({
    server: z
      .string()
      .url()
      .default('https://benchmark-database.de')
      .meta({
        description:
          'The GBD (Global Benchmark Database) server `satlution benchmarks fetch` asks; only its /getinstances, /file/<hash> and /getdatabase/<families_database> routes are used.',
        examples: ['https://benchmark-database.de'],
      }),
    cache: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'The cache of fetched instances, shared by all workspaces and addressed by GBD hash (default: $SATLUTION_GBD_CACHE, else ~/.cache/satlution/gbd).',
        examples: ['/data/gbd-cache'],
      }),
    jobs: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(4)
      .meta({ description: 'Downloads at a time.', examples: [4] }),
    max_mb: z
      .number()
      .positive()
      .default(4096)
      .meta({ description: 'The largest instance file (compressed, MB) a fetch accepts.', examples: [4096] }),
    max_cnf_mb: z
      .number()
      .positive()
      .default(20000)
      .meta({ description: 'The most an instance may decompress to (MB, comments included) before a fetch refuses it.', examples: [20000] }),
    idle_timeout_s: z
      .number()
      .positive()
      .default(60)
      .meta({
        description: 'A request to the server that gets less than 1 KiB in this many seconds is given up (a download is retried, resuming).',
        examples: [60],
      }),
    timeout_s: z
      .number()
      .positive()
      .default(7200)
      .meta({
        description: 'A request to the server is given up after this many seconds in all (a whole file at a slow link fits the default).',
        examples: [7200],
      }),
    max_instances: z
      .number()
      .int()
      .positive()
      .default(100000)
      .meta({ description: 'The most instances a query may list; a longer list is refused (narrow the query).', examples: [100000] }),
    max_list_mb: z
      .number()
      .positive()
      .default(64)
      .meta({ description: "The most a query's reply may hold (MB).", examples: [64] }),
    families_database: z
      .string()
      .regex(/^[A-Za-z0-9_]{0,64}$/)
      .default('meta')
      .meta({
        description:
          "The server's database (/getdatabase/NAME, SQLite) whose family feature gives each fetched instance its family in meta.csv; empty: none is asked (a --families-db file, --family or the query's family=X still do).",
        examples: ['meta'],
      }),
    max_db_mb: z
      .number()
      .positive()
      .default(256)
      .meta({
        description: 'The largest GBD database (MB) a fetch reads families from; a larger one is refused and the set has no families from it.',
        examples: [256],
      }),
    max_stalls: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(3)
      .meta({
        description:
          'Download attempts in a row that stall or fail with less than 1 MB received before the whole fetch is given up (a server failing file after file), rather than each file retried to its end.',
        examples: [3],
      }),
    lock_wait_s: z
      .number()
      .positive()
      .default(600)
      .meta({
        description:
          "The longest a fetch waits for another live fetch of the shared cache that holds an instance's lock; it says that it waits, and then gives up on that instance, naming the lock.",
        examples: [600],
      }),
    xz_mem_mb: z
      .number()
      .int()
      .min(8)
      .max(65536)
      .default(256)
      .meta({
        description:
          'The most memory (MiB) xz may use to decompress one fetched instance; a file whose header asks for more (xz -9 needs 65) is refused with the reason, before any of it is allocated.',
        examples: [256],
      }),
  })
  .strict()
  .prefault({});

export const StageName = z.enum(['smoke', 'verify', 'perf']);
export type StageName = z.infer<typeof StageName>;

const stageFields = (set: StageName, timeout: number, mem: number, proofs: boolean) => ({
  set: z
    .string()
    .default(set)
    .meta({
      description: 'Name of the benchmark set (a key of `benchmarks`) this stage runs.',
      examples: [set],
    }),
  timeout_s: z
    .number()
    .positive()
    .default(timeout)
    .meta({
      description: 'Wall-clock limit per solver run, in seconds. PAR-2 charges 2x this for unsolved instances.',
      examples: [timeout],
    }),
  mem_mb: z
    .number()
    .int()
    .positive()
    .default(mem)
    .meta({
      description: 'Memory limit per solver run, in MiB.',
      examples: [mem],
    }),
  runner: z
    .string()
    .default('local')
    .meta({
      description: 'Name of the runner (an entry of `runners`) that executes this stage.',
      examples: ['local'],
    }),
  check_proofs: z
    .boolean()
    .default(proofs)
    .meta({
      description: "Check every UNSAT answer's DRAT proof with drat-trim (it costs about as much as solving). SAT models are always checked.",
      examples: [proofs],
    }),
});
const stage = (set: StageName, timeout: number, mem: number, proofs: boolean) =>
  z
    .object(stageFields(set, timeout, mem, proofs))
    .strict()
    .prefault({});

export const TierSchema = z
  .object({
    fraction: z
      .number()
      .gt(0)
      .lt(1)
      .meta({ description: 'Share of the perf set in this tier (a fixed subset: every tier holds the smaller ones).', examples: [0.25] }),
    timeout_s: z
      .number()
      .positive()
      .meta({ description: 'Wall-clock limit per run in this tier.', examples: [60] }),
    promote_top: z
      .number()
      .gt(0)
      .max(1)
      .meta({
        description: 'Candidates whose PAR-2 in this tier ranks in this top share of all candidates measured in it go on to the next tier.',
        examples: [0.5],
      }),
  })
  .strict();
export type Tier = z.infer<typeof TierSchema>;

/** perf checks no proofs while it runs: a random sample of the proofs its UNSAT answers' runs kept is checked afterwards (eval/audit.ts). */
const AuditSchema = z
  .object({
    min: z
      .number()
      .int()
      .nonnegative()
      .default(3)
      .meta({ description: 'At least this many UNSAT answers are audited (fewer only when perf gave fewer).', examples: [3] }),
    share: z
      .number()
      .min(0)
      .max(1)
      .default(0.1)
      .meta({ description: 'Or this share of the UNSAT answers, when that is more (rounded up).', examples: [0.1] }),
  })
  .strict()
  .prefault({})
  .meta({
    description:
      "When perf does not check proofs while it runs: every UNSAT answer must come with the DRAT proof its own run wrote (else missing_proof), kept until the decisions that may check it are made; after the runs, at least `min` or `share` of those proofs (whichever is more), drawn at random, are checked by drat-trim, and so is every UNSAT answer a winner's gain rests on before a promotion. A proof rejected fails perf like a failure in verify. `{ min: 0, share: 0 }` turns it off (UNSAT answers are then taken on trust).",
    examples: [
      { min: 3, share: 0.1 },
      { min: 0, share: 0 },
    ],
  });

const perfStage = z
  .object({
    ...stageFields('perf', 300, 8192, false),
    tiers: z
      .array(TierSchema)
      .max(4)
      .optional()
      .meta({
        description:
          "Multi-fidelity evaluation: cheaper tiers (a subset and a shorter timeout) a cycle's candidate must rank well in before the full perf set; comparisons are made within a tier only. Ordered from cheapest.",
        examples: [
          [
            { fraction: 0.25, timeout_s: 60, promote_top: 0.5 },
            { fraction: 0.5, timeout_s: 150, promote_top: 0.2 },
          ],
        ],
      }),
    holdout: z
      .string()
      .optional()
      .meta({
        description: 'A benchmark set kept out of selection: a candidate about to become champion must not be slower than the champion on it.',
        examples: ['holdout'],
      }),
    audit: AuditSchema,
  })
  .strict()
  .prefault({});

export const StagesSchema = z
  .object({
    smoke: stage('smoke', 10, 2048, true).meta({ description: 'Stage 1: quick crash / wrong-answer screen after the build.' }),
    verify: stage('verify', 60, 4096, true).meta({
      description: 'Stage 2: known-answer instances; every SAT model and UNSAT DRAT proof is checked.',
    }),
    perf: perfStage.meta({ description: 'Stage 3: the performance set that PAR-2 is measured on.' }),
  })
  .strict()
  .prefault({});

/** `on`/`off`, or YAML 1.1's true/false for them. */
const onOff = z.union([z.enum(['on', 'off']), z.boolean()]);

const runnerSandbox = onOff.optional().meta({
  description:
    'This runner\'s isolation, overriding the top-level `sandbox`: off for a host without bubblewrap (its results are marked "measured without isolation").',
  examples: ['off'],
});

/** `sandbox`: how evolved code (builds, solver runs, objective functions) is isolated. */
export const SandboxSchema = z
  .union([
    onOff,
    z
      .object({
        mode: z
          .enum(['on', 'off'])
          .default('on')
          .meta({
            description:
              'on: every build and solver run in a bubblewrap sandbox; off: evolved code runs with your full authority (shown as a warning everywhere).',
            examples: ['on'],
          }),
        build_network: z
          .boolean()
          .default(false)
          .meta({ description: 'Let `starexec_build` reach the network (for builds that fetch); solver runs never can.', examples: [false] }),
        read_only: z
          .array(z.string().min(1))
          .default([])
          .meta({
            description:
              'Extra paths of this machine that builds and local runs may read (a toolchain outside /usr and /opt). SSH hosts and Slurm nodes use their system directories only.',
            examples: [['/opt/gcc-14']],
          }),
        bwrap: z
          .string()
          .min(1)
          .optional()
          .meta({
            description: 'The bubblewrap executable on this machine (default: bwrap on PATH). SSH hosts and Slurm nodes use the bwrap on their PATH.',
            examples: ['/usr/bin/bwrap'],
          }),
      })
      .strict(),
  ])
  .default('on')
  .meta({
    description:
      'Isolation of evolved code: on (default) runs every build and solver run in a bubblewrap sandbox that sees only the candidate (and, for a run, its instance) with no network and a cleared environment; off runs it unconfined and marks every result "measured without isolation".',
    examples: ['on', { mode: 'on', build_network: true }],
  });

const jobs = z
  .number()
  .int()
  .positive()
  .meta({
    description: 'How many solver runs execute at once (one instance per slot).',
    examples: [2],
  });

export const LocalRunnerSchema = z
  .object({
    name: name('runner', 'local'),
    kind: z.literal('local'),
    jobs: jobs.optional(),
    sandbox: runnerSandbox,
  })
  .strict();

export const SshRunnerSchema = z
  .object({
    name: name('runner', 'workstation'),
    kind: z.literal('ssh'),
    host: z
      .string()
      .min(1)
      .meta({
        description: 'Host alias or user@host as OpenSSH understands it (your ~/.ssh/config applies).',
        examples: ['lab-workstation'],
      }),
    workdir: z
      .string()
      .default('.satlution-work')
      .meta({
        description: 'Remote directory (relative to the remote home) for the worker, candidates and results.',
        examples: ['.satlution-work'],
      }),
    node: z
      .string()
      .default('node')
      .meta({
        description: 'Node.js executable on the remote host (runs the one-file evaluation worker).',
        examples: ['node'],
      }),
    build: z
      .enum(['local', 'remote'])
      .default('local')
      .meta({
        description:
          'local: the candidate built here is copied (same OS and CPU family). remote: its sources are copied and `bash starexec_build` runs there (another OS or architecture); objects, build/ and binaries in bin/ are removed first so nothing built here survives.',
        examples: ['remote'],
      }),
    jobs,
    sandbox: runnerSandbox,
  })
  .strict();

export const SlurmRunnerSchema = z
  .object({
    name: name('runner', 'cluster'),
    kind: z.literal('slurm'),
    login_host: z
      .string()
      .min(1)
      .optional()
      .meta({
        description: 'SSH alias of the login node; omit when sbatch runs on this machine.',
        examples: ['cluster-login'],
      }),
    workdir: z
      .string()
      .min(1)
      .meta({
        description: 'Directory on the shared filesystem that every compute node sees.',
        examples: ['/scratch/me/satlution'],
      }),
    partition: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Slurm partition (-p).', examples: ['compute'] }),
    account: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Slurm account (-A).', examples: ['sat-lab'] }),
    qos: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Slurm quality of service (--qos).', examples: ['normal'] }),
    cpus_per_task: z
      .number()
      .int()
      .positive()
      .default(1)
      .meta({
        description: 'CPUs per array task (--cpus-per-task); one instance runs per task.',
        examples: [1],
      }),
    mem_mb: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({
        description: "Memory per array task in MB (--mem); default: the stage's memory limit plus 512 MB for the worker and checker.",
        examples: [8192],
      }),
    array_throttle: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({
        description: 'At most this many tasks of one array run at once (--array=...%N); omit for no limit.',
        examples: [50],
      }),
    max_array: z
      .number()
      .int()
      .positive()
      .default(1000)
      .meta({
        description: 'Largest job-array size the cluster accepts (MaxArraySize).',
        examples: [1000],
      }),
    node: z
      .string()
      .default('node')
      .meta({ description: 'Node.js executable on the compute nodes.', examples: ['node'] }),
    build: z
      .enum(['local', 'remote'])
      .default('local')
      .meta({
        description:
          'local: the candidate built here is copied (same OS and CPU family). remote: its sources are copied and `bash starexec_build` runs on the login node (another OS or architecture); objects, build/ and binaries in bin/ are removed first so nothing built here survives.',
        examples: ['remote'],
      }),
    sbatch_args: z
      .array(z.string())
      .default([])
      .meta({
        description: 'Extra sbatch arguments, one per item.',
        examples: [['--qos=normal']],
      }),
    sandbox: runnerSandbox,
  })
  .strict();

export const RunnerSchema = z.discriminatedUnion('kind', [LocalRunnerSchema, SshRunnerSchema, SlurmRunnerSchema]);
export type RunnerConfig = z.infer<typeof RunnerSchema>;

export const Provider = z.enum(['openai', 'anthropic', 'openai-compatible']);

export const ModelSchema = z
  .object({
    provider: Provider.meta({
      description: 'LLM provider: openai, anthropic, or openai-compatible (vLLM, Ollama, LM Studio, gateways).',
      examples: ['anthropic'],
    }),
    model: z
      .string()
      .min(1)
      .meta({ description: "The provider's model id.", examples: ['claude-sonnet-4-5'] }),
    base_url: z
      .url()
      .optional()
      .meta({
        description: 'API base URL; required for openai-compatible servers.',
        examples: ['http://localhost:11434/v1'],
      }),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional()
      .meta({
        description: 'Environment variable holding the API key for the CLI (the extension keeps keys in SecretStorage).',
        examples: ['ANTHROPIC_API_KEY'],
      }),
    max_output_tokens: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({
        description: 'Cap on tokens per model reply.',
        examples: [8192],
      }),
    price_usd_per_mtok: z
      .object({
        input: z
          .number()
          .nonnegative()
          .meta({ description: 'USD per million input tokens.', examples: [3] }),
        output: z
          .number()
          .nonnegative()
          .meta({ description: 'USD per million output tokens.', examples: [15] }),
        cache_read: z
          .number()
          .nonnegative()
          .optional()
          .meta({ description: 'USD per million cached input tokens read (default: the input price).', examples: [0.3] }),
        cache_write: z
          .number()
          .nonnegative()
          .optional()
          .meta({ description: 'USD per million input tokens written to the cache (default: the input price).', examples: [3.75] }),
      })
      .strict()
      .optional()
      .meta({ description: 'Prices used for cost accounting and the USD budget.' }),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.provider === 'openai-compatible' && !m.base_url)
      ctx.addIssue({
        code: 'custom',
        path: ['base_url'],
        message: 'is required when provider is openai-compatible',
      });
  });
export type ModelConfig = z.infer<typeof ModelSchema>;

export const ModelsSchema = z
  .object({
    planner: ModelSchema.optional().meta({ description: 'Model that writes HYPOTHESIS.md and the task list.' }),
    coder: ModelSchema.optional().meta({ description: 'Model that edits, builds and fixes the candidate.' }),
    judge: ModelSchema.optional().meta({ description: 'Model that scores proposals before evaluation.' }),
  })
  .strict()
  .prefault({});

/** The race (decide/race.ts): a cycle's challengers and the champion side by side in one session; a challenger is dropped as soon as it cannot be the gain the race is for. */
/** The family rule (decide/familyCheck.ts): no family with enough instances may pay for a promotion. */
export const FamiliesSchema = z
  .object({
    veto: z
      .boolean()
      .default(true)
      .meta({
        description:
          "A challenger significantly slower than the champion on a family (meta.csv's family column) by more than tolerance_pct is not promoted, and the held-out check vetoes a winner so slower on a held-out family. Off: the per-family figures are still reported, nothing is vetoed by them.",
        examples: [true],
      }),
    tolerance_pct: z
      .number()
      .min(0)
      .max(100)
      .default(5)
      .meta({
        description: 'How much slower than the champion, percent of its PAR-2 on the family, a family may be under a promoted challenger.',
        examples: [5],
      }),
    min_instances: z
      .number()
      .int()
      .min(1)
      .default(4)
      .meta({ description: 'The fewest instances a family needs to be judged (smaller ones are reported, not judged).', examples: [4] }),
    error: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.2)
      .meta({
        description:
          'The most a challenger that no judged family is slower under is vetoed by the rule, over all its families (each family is judged at error / families judged). Families in doubt run again before the decision, up to 9 runs of each instance.',
        examples: [0.2],
      }),
  })
  .strict()
  .prefault({});

export const RacingSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .meta({
        description:
          "Drop a challenger as soon as its same-session pairs with the champion say its chance to pass the promotion test at the end of the set is under 25% (less at the looks before a quarter of the set has run: 25% times the share run over a quarter; the rest of the set predicted from its pairs, the champion's timeouts apart, where a challenger that solves more shows), and cap its runs at cap_factor times the champion's time; the champion stops when no challenger is left. Off: every challenger runs the whole set, uncapped. Either way a promotion is decided on the full set's pairs.",
        examples: [true],
      }),
    detect_gain_pct: z.number().gt(0).lt(100).optional().meta({
      description: 'No longer used: the race drops a challenger by its chance to pass the promotion test, not against a gain. Accepted so older files load.',
    }),
    cap_factor: z
      .number()
      .min(1)
      .default(3)
      .meta({
        description:
          "A challenger's run is stopped at this multiple of the champion's time on the instance (adaptive capping); a capped run counts its cap while racing. A survivor and the champion both run again in full every instance where its run was capped or the champion's went past its cap, so the pairs that decide are complete and the test's level holds at any factor (a low one costs more runs again).",
        examples: [3],
      }),
    cap_floor_s: z
      .number()
      .positive()
      .default(1)
      .meta({ description: 'No cap below this many seconds (very fast instances are not worth capping: process start-up dominates).', examples: [1] }),
    min_instances: z
      .number()
      .int()
      .positive()
      .default(5)
      .meta({ description: 'Instances a challenger runs before it can be dropped.', examples: [5] }),
    min_share: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .meta({ description: 'No longer used: the champion runs beside the challengers from the first instance on. Accepted so older files load.' }),
  })
  .strict()
  .prefault({});
export type RacingConfig = z.infer<typeof RacingSchema>;
export type FamiliesConfig = z.infer<typeof FamiliesSchema>;

/** Noise calibration (decide/calibration.ts): the champion against itself; the band is information, not a margin. */
export const CalibrationSchema = z
  .object({
    auto: z
      .boolean()
      .default(true)
      .meta({
        description:
          'No longer used by cycles: decisions need no noise band (the PAR-2 test measures the run noise of its own session). `satlution calibrate` measures the band on demand, for information. Accepted so older files load.',
        examples: [true],
      }),
    max_age_days: z
      .number()
      .positive()
      .default(30)
      .meta({ description: 'A calibration older than this is measured again.', examples: [30] }),
  })
  .strict()
  .prefault({});
export type CalibrationConfig = z.infer<typeof CalibrationSchema>;

/** evaluation.disk_max_mb's default: what a build may leave in its candidate, and a run may write to its scratch. */
export const DEFAULT_DISK_MAX_MB = 1024;

/** evaluation.checker's defaults, and the worker's when not told (the stage gives the longest check and the largest proof). */
export const DEFAULT_CHECKER = { timeFactor: 10, timeMinS: 10, memMb: 8192, proofMbPerS: 64, proofMinMb: 64 } as const;

/** evaluation.proof_max_mb's default: one run's proof; also the worker's when not told. */
export const DEFAULT_PROOF_MAX_MB = 2048;

/** evaluation.processes_max's default: processes and threads alive at once in one build or one run. */
export const DEFAULT_PROCESSES_MAX = 256;

/** evaluation.checker: drat-trim's own bounds, relative to the solving time of the run whose proof it checks. */
export const CheckerSchema = z
  .object({
    time_factor: z
      .number()
      .positive()
      .default(DEFAULT_CHECKER.timeFactor)
      .meta({
        description:
          "A proof check's CPU time: this many times the run's solving time (CPU time where measured), at least time_min_s and at most checker_timeout_s.",
        examples: [10],
      }),
    time_min_s: z
      .number()
      .positive()
      .default(DEFAULT_CHECKER.timeMinS)
      .meta({ description: 'The least CPU time a proof check gets, however fast the run.', examples: [10] }),
    mem_mb: z
      .number()
      .positive()
      .default(DEFAULT_CHECKER.memMb)
      .meta({ description: "drat-trim's address space in MB; a check that runs out of it has not verified the proof.", examples: [8192] }),
    proof_mb_per_s: z
      .number()
      .positive()
      .default(DEFAULT_CHECKER.proofMbPerS)
      .meta({
        description:
          'The largest proof checked: this many MB per second of solving, at least proof_min_mb and at most proof_max_mb. A larger proof is not read, and its answer counts as unsolved.',
        examples: [64],
      }),
    proof_min_mb: z
      .number()
      .positive()
      .default(DEFAULT_CHECKER.proofMinMb)
      .meta({ description: 'The largest proof always checked, however fast the run.', examples: [64] }),
  })
  .strict()
  .prefault({})
  .meta({
    description:
      "drat-trim's bounds, relative to the solving time of the run whose proof it checks. A proof is verified only when drat-trim exits 0 with exactly one status line, `s VERIFIED`, within every bound; any other ending (a bound reached, a memory-out, a crash) leaves the answer unproved, and it counts as unsolved.",
  });
export type CheckerConfig = z.infer<typeof CheckerSchema>;

export const EvaluationSchema = z
  .object({
    drat_trim: z
      .string()
      .min(1)
      .optional()
      .meta({
        description: 'Path of an existing drat-trim binary (default: the one scripts/setup-sat-tools.sh builds, or drat-trim on PATH).',
        examples: ['/opt/sat/bin/drat-trim'],
      }),
    proof_max_mb: z
      .number()
      .positive()
      .default(DEFAULT_PROOF_MAX_MB)
      .meta({
        description:
          "The most MB one run's DRAT proof may take. A run whose proof grows past it is stopped, and its answer counts as unsolved (a resource limit, as time and memory are); a larger proof is never checked. perf keeps each UNSAT answer's proof until the decisions that may check it are made, so a perf set needs up to this much per UNSAT answer in `scratch_dir`: raise it for long timeouts (a solver writes binary DRAT at several MB per second).",
        examples: [2048, 32768],
      }),
    checker_timeout_s: z
      .number()
      .positive()
      .optional()
      .meta({
        description:
          'The longest one proof check may take, whatever the solving time (default: 3x the stage timeout); `checker` bounds it relative to the run. An answer whose proof is not verified within its bounds counts as unsolved.',
        examples: [900],
      }),
    checker: CheckerSchema,
    build_timeout_s: z
      .number()
      .positive()
      .default(600)
      .meta({ description: 'Time limit of `bash starexec_build`.', examples: [600] }),
    output_max_mb: z
      .number()
      .positive()
      .default(256)
      .meta({
        description: 'A run that writes more output than this is stopped and counted as a crash.',
        examples: [256],
      }),
    disk_max_mb: z
      .number()
      .positive()
      .default(DEFAULT_DISK_MAX_MB)
      .meta({
        description:
          'MB that candidate code may fill. A build: its candidate directory may hold this much (watched while it runs, checked after it), no single file it writes may grow past it (RLIMIT_FSIZE), and its scratch (HOME, TMPDIR, /tmp) may hold this much. A solver run: its scratch (HOME, TMPDIR, /tmp, /var/tmp) may hold this much together; in the sandbox /tmp and /var/tmp are tmpfs mounts of this size. Sizes are apparent sizes (a sparse file counts whole). A build or run that goes over is stopped and fails with the reason. Proofs are bounded by proof_max_mb instead.',
        examples: [1024],
      }),
    processes_max: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_PROCESSES_MAX)
      .meta({
        description:
          "Processes and threads alive at once in one build or one solver run (pids.max of its cgroup; the sandbox's own two processes count too). Reaching it stops the build or run, which fails with the reason. Where no cgroup can be made, the process tree is counted a few times a second instead (the runner's health check says which).",
        examples: [256],
      }),
    scratch_dir: z
      .string()
      .min(1)
      .optional()
      .meta({
        description: 'Where proofs are written during a run (they can take GBs; default: the system temp directory).',
        examples: ['/scratch/me/tmp'],
      }),
    vacuous_gates: z
      .enum(['fail', 'warn'])
      .default('fail')
      .meta({
        description:
          'fail: a smoke, verify or perf stage with no instances, or a verify stage where no answer could be checked, fails the evaluation and says what to add. warn: it passes with a warning shown with the verdict.',
        examples: ['fail', 'warn'],
      }),
    decide_on: z
      .enum(['wall', 'cpu'])
      .default('cpu')
      .meta({
        description:
          "The time a promotion is decided on. PAR-2 is always reported on wall time, as competitions define it; cpu (user + system of the solver's whole process tree, from its cgroup) is far less moved by other load on the machine, so an A/A test holds better with it (docs/decisions.md). Runs without CPU accounting (no cgroup) fall back to wall time.",
        examples: ['cpu'],
      }),
    rank_by: z
      .enum(['par2', 'solved-then-par2'])
      .default('par2')
      .meta({
        description:
          'What a promotion ranks by. par2: a challenger must be significantly better side by side in expected PAR-2 on the set (the promotion level, against the run noise, near the limit the flips between solved and 2T), and its PAR-2 at least min_improvement_pct lower at 80% confidence; the geometric mean is reported and never promotes. solved-then-par2 (as the SAT Competition ranks): the instances one side solved and the other did not join the test, one that solves more wins without the PAR-2 margin, one that solves fewer never does, and among equals the margin applies as with par2.',
        examples: ['par2', 'solved-then-par2'],
      }),
    racing: RacingSchema,
    families: FamiliesSchema,
    calibration: CalibrationSchema,
  })
  .strict()
  .prefault({});

export const PlannerSchema = z
  .object({
    directions: z
      .array(
        z
          .object({
            text: z
              .string()
              .min(5)
              .meta({ description: 'A direction the planner may be asked to pursue.', examples: ['Make propagation cheaper.'] }),
            weight: z
              .number()
              .positive()
              .meta({ description: 'Relative chance of being drawn for a cycle.', examples: [2] }),
          })
          .strict(),
      )
      .min(1)
      .optional()
      .meta({ description: 'Meta-directions mixed into the plans, one drawn per cycle by weight (default: a built-in set for CDCL solvers).' }),
  })
  .strict()
  .prefault({});

export const BudgetsSchema = z
  .object({
    usd: z
      .number()
      .positive()
      .optional()
      .meta({
        description: 'Stop cleanly once LLM spending reaches this many US dollars (unset = no cap).',
        examples: [25],
      }),
    cpu_hours: z
      .number()
      .positive()
      .optional()
      .meta({
        description: 'Stop cleanly once solver runs have used this many CPU-hours (unset = no cap).',
        examples: [50],
      }),
  })
  .strict()
  .prefault({});

export const ConfigSchema = z
  .object({
    version: z
      .literal(1)
      .default(1)
      .meta({ description: 'Config format version.', examples: [1] }),
    seeds: z
      .array(SeedSchema)
      .min(1, 'needs at least one seed')
      .meta({
        description: 'Baseline solvers imported into seeds/<name>/; the primary one became SATLUTION_0.',
        examples: [[{ name: 'kissat', source: '../solvers/kissat', primary: true }]],
      }),
    benchmarks: z
      .record(z.string().regex(NAME_RE), z.string().min(1))
      .default({ smoke: 'benchmarks/smoke', verify: 'benchmarks/verify', perf: 'benchmarks/perf' })
      .meta({
        description: 'Benchmark sets: name -> directory of .cnf/.cnf.gz/.cnf.xz files with an optional meta.csv (instance,family,expected).',
        examples: [{ smoke: 'benchmarks/smoke' }],
      }),
    gbd: GbdSchema,
    stages: StagesSchema,
    runners: z
      .array(RunnerSchema)
      .default([{ name: 'local', kind: 'local' }])
      .meta({
        description: 'Where solver runs execute: local process pool, an SSH host, or a Slurm cluster.',
        examples: [[{ name: 'local', kind: 'local', jobs: 2 }]],
      }),
    evaluation: EvaluationSchema,
    sandbox: SandboxSchema,
    models: ModelsSchema,
    planner: PlannerSchema,
    strategy: StrategySchema,
    approval: z
      .enum(['manual', 'semi', 'auto'])
      .default('semi')
      .meta({
        description: 'manual: approve every step; semi: approve each plan before coding; auto: run cycles unattended.',
        examples: ['semi'],
      }),
    budgets: BudgetsSchema,
    par2_visible_from_cycle: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .meta({
        description: 'Hide PAR-2 from the agents until this cycle (the paper withheld it to avoid metric gaming); 0 = always visible.',
        examples: [0],
      }),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.seeds.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: ['seeds', i, 'name'], message: `duplicate seed name "${s.name}"` });
      seen.add(s.name);
    });
    const primaries = c.seeds.flatMap((s, i) => (s.primary ? [i] : []));
    for (const i of primaries.slice(1)) ctx.addIssue({ code: 'custom', path: ['seeds', i, 'primary'], message: 'only one seed can be primary' });
    const runnerNames = new Set<string>();
    c.runners.forEach((r, i) => {
      if (r.kind === 'slurm' && r.build === 'remote' && !r.login_host)
        ctx.addIssue({
          code: 'custom',
          path: ['runners', i, 'build'],
          message: 'build: remote builds on the login node: set login_host (without one, sbatch runs here and the candidate built here is used)',
        });
      if (runnerNames.has(r.name)) ctx.addIssue({ code: 'custom', path: ['runners', i, 'name'], message: `duplicate runner name "${r.name}"` });
      runnerNames.add(r.name);
    });
    for (const st of StageName.options) {
      const s = c.stages[st];
      if (!(s.set in c.benchmarks))
        ctx.addIssue({
          code: 'custom',
          path: ['stages', st, 'set'],
          message: `names no benchmark set; known sets: ${Object.keys(c.benchmarks).join(', ') || '(none)'}`,
        });
      if (!runnerNames.has(s.runner))
        ctx.addIssue({
          code: 'custom',
          path: ['stages', st, 'runner'],
          message: `names no runner; known runners: ${[...runnerNames].join(', ') || '(none)'}`,
        });
    }
    const perf = c.stages.perf;
    if (perf.holdout !== undefined && !(perf.holdout in c.benchmarks))
      ctx.addIssue({
        code: 'custom',
        path: ['stages', 'perf', 'holdout'],
        message: `names no benchmark set; known sets: ${Object.keys(c.benchmarks).join(', ') || '(none)'}`,
      });
    if (perf.holdout !== undefined && perf.holdout === perf.set)
      ctx.addIssue({ code: 'custom', path: ['stages', 'perf', 'holdout'], message: 'the held-out set must not be the perf set itself' });
    perf.tiers?.forEach((t, i) => {
      const prev = perf.tiers![i - 1];
      if (prev && t.fraction <= prev.fraction)
        ctx.addIssue({
          code: 'custom',
          path: ['stages', 'perf', 'tiers', i, 'fraction'],
          message: `tiers grow: ${t.fraction} is not above the previous tier's ${prev.fraction}`,
        });
      if (t.timeout_s > perf.timeout_s)
        ctx.addIssue({
          code: 'custom',
          path: ['stages', 'perf', 'tiers', i, 'timeout_s'],
          message: `a tier's timeout cannot exceed the perf stage's ${perf.timeout_s} s`,
        });
    });
    if (c.strategy.name === 'sift' && !c.models.judge && !c.models.planner)
      ctx.addIssue({
        code: 'custom',
        path: ['strategy', 'name'],
        message: 'sift needs a judge model: set models.judge (or models.planner, which then also judges)',
      });
  });

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
export type SeedConfig = z.infer<typeof SeedSchema>;

/** The primary seed: the one marked `primary`, else the first. */
export function primarySeed(c: Config): SeedConfig {
  return c.seeds.find((s) => s.primary) ?? c.seeds[0]!;
}

/** JSON Schema of the file as a person writes it (defaults optional), for editors and error hints. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** Where a benchmark set's instances are: its directory in `benchmarks`, relative to `base` (the workspace), or the name taken as a path. */
export const setDir = (config: Pick<Config, 'benchmarks'>, base: string, set: string): string => path.resolve(base, config.benchmarks[set] ?? set);
