// The satlution.yaml `strategy` block: one variant per search strategy (a discriminated union on its
// name), the keys they share, and the islands and SMC settings. Part of the schema (schema.ts).
import { z } from 'zod';
import { STRATEGY_NAMES, type StrategyName } from './strategyNames';

/** Keys every strategy has: the promotion rule's margin and the paired test's level. */
const sharedStrategyKeys = {
  min_improvement_pct: z
    .number()
    .nonnegative()
    .max(100)
    .default(5)
    .meta({
      description:
        'A challenger replaces the champion only if it is correct, significantly faster (paired test), and its PAR-2 is at least this many percent lower (run-to-run noise is a few percent; the instances near the limit and the longest run again by both while the decision is in doubt, and the mean of their runs decides).',
      examples: [5],
    }),
  alpha: z
    .number()
    .positive()
    .max(0.5)
    .default(0.05)
    .meta({ description: 'Significance level of the paired test.', examples: [0.05] }),
};

const strategyName = <N extends StrategyName>(n: N) =>
  z.literal(n).meta({
    description:
      'Search strategy. champion-challenger evolves one champion at a time, as the SATLUTION paper does. sift makes several proposals per cycle, has a judge model score each diff (1-10) and evaluates only the best ones. islands keeps a MAP-Elites database on several islands (features: SAT-vs-UNSAT PAR-2 balance, code size), picks parents from it, migrates the best between islands, and rejects duplicates before evaluation. smc moves a population of candidates by Metropolis-Hastings steps under an annealed temperature (SMCEvolve).',
    examples: [...STRATEGY_NAMES],
  });

/** The islands strategy's program database settings (defaults follow OpenEvolve, sized for expensive evaluations). */
export const IslandsSchema = z
  .object({
    count: z
      .number()
      .int()
      .min(1)
      .max(32)
      .default(5)
      .meta({ description: 'Islands (separate MAP-Elites grids); cycles visit them in turn.', examples: [5] }),
    population: z
      .number()
      .int()
      .min(2)
      .max(10000)
      .default(70)
      .meta({ description: 'Members kept across all islands (the best by PAR-2); the rest leave the grids.', examples: [70] }),
    archive: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(25)
      .meta({ description: 'Elite archive: the best members overall, shown in the dashboard and used for exploration.', examples: [25] }),
    bins: z
      .number()
      .int()
      .min(2)
      .max(20)
      .default(5)
      .meta({ description: 'Bins per feature axis (SAT/UNSAT PAR-2 balance x code size).', examples: [5] }),
    migration_interval: z
      .number()
      .int()
      .min(1)
      .default(10)
      .meta({ description: 'Every this many cycles, each island sends its best member to the next island.', examples: [10] }),
    exploitation: z
      .number()
      .min(0)
      .max(1)
      .default(0.7)
      .meta({ description: "Chance that a cycle starts from its island's best member (else from a random occupied cell).", examples: [0.7] }),
  })
  .strict();
/** The islands settings, every default filled in. */
export type IslandsConfig = z.infer<typeof IslandsSchema>;
/** The islands settings when satlution.yaml gives none (the schema's defaults). */
export const DEFAULT_ISLANDS: IslandsConfig = IslandsSchema.parse({});

/** The smc strategy's settings (SMCEvolve's N, K, temperature schedule and run limits). */
export const SmcSchema = z
  .object({
    particles: z
      .number()
      .int()
      .min(2)
      .max(64)
      .default(4)
      .meta({ description: 'Particles (candidates) per iteration: N.', examples: [4] }),
    mh_steps: z
      .number()
      .int()
      .min(1)
      .max(8)
      .default(2)
      .meta({ description: 'Metropolis-Hastings moves per particle and iteration: K (an iteration costs N x K evaluations).', examples: [2] }),
    beta: z
      .number()
      .positive()
      .default(40)
      .meta({
        description:
          'Final inverse temperature. Rewards are 0.5 at the reference PAR-2 and move 0.5 per halving or doubling, so a 5% gain is worth about beta x 0.035 at the end.',
        examples: [40],
      }),
    kappa: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.9)
      .meta({ description: 'The tempering step keeps the effective sample size at least kappa x N.', examples: [0.9] }),
    min_iterations: z
      .number()
      .int()
      .min(1)
      .default(3)
      .meta({ description: 'Temperature steps are at most 1/min_iterations.', examples: [3] }),
    max_iterations: z
      .number()
      .int()
      .min(1)
      .default(8)
      .meta({ description: 'A run ends after this many iterations (T_max) at the latest.', examples: [8] }),
    stall: z
      .number()
      .int()
      .min(1)
      .default(3)
      .meta({ description: 'A run ends when the best reward has not improved for this many iterations.', examples: [3] }),
    max_evaluations: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({
        description: 'A run ends after this many moves (evaluations) at the latest (a per-run budget; budgets.cpu_hours caps everything).',
        examples: [64],
      }),
  })
  .strict();
/** The smc settings, every default filled in (max_evaluations stays optional). */
export type SmcConfig = z.infer<typeof SmcSchema>;
/** The smc settings when satlution.yaml gives none (the schema's defaults). */
export const DEFAULT_SMC: SmcConfig = SmcSchema.parse({});

/** Each strategy's keys; `name` may be left out for champion-challenger. */
const STRATEGY_VARIANTS = {
  'champion-challenger': z
    .object({
      name: strategyName('champion-challenger').default('champion-challenger'),
      lambda: z
        .number()
        .int()
        .min(1)
        .max(16)
        .default(1)
        .meta({
          description:
            "champion-challenger: proposals per cycle from the champion, a (1+lambda) evolution strategy (default 1, the paper's loop). Each is raced against the champion; the fastest measured in full meets the champion side by side, and the promotion rule decides.",
          examples: [1, 3],
        }),
      ...sharedStrategyKeys,
    })
    .strict(),
  sift: z
    .object({
      name: strategyName('sift'),
      proposals: z
        .number()
        .int()
        .min(1)
        .max(16)
        .default(4)
        .meta({
          description: 'sift: proposals (plan + code) per cycle (default 4). champion-challenger makes `lambda` (default 1).',
          examples: [4],
        }),
      evaluate_top: z
        .number()
        .int()
        .min(1)
        .max(16)
        .default(1)
        .meta({
          description: "sift: how many of the judge's best-scored proposals are evaluated per cycle (default 1).",
          examples: [1],
        }),
      judge_rubric: z
        .string()
        .min(10)
        .optional()
        .meta({
          description:
            "sift: the judge's rubric (default: a built-in one for SAT solver changes: soundness risk, expected PAR-2 effect, evidence in the code, scope).",
          examples: ['Prefer small, well-motivated changes to restart and phase heuristics.'],
        }),
      ...sharedStrategyKeys,
    })
    .strict()
    .superRefine((s, ctx) => {
      if (s.evaluate_top > s.proposals)
        ctx.addIssue({ code: 'custom', path: ['evaluate_top'], message: `cannot evaluate more than the ${s.proposals} proposals made per cycle` });
    }),
  islands: z
    .object({
      name: strategyName('islands'),
      islands: IslandsSchema.prefault({}).meta({ description: 'islands: the program database (defaults follow OpenEvolve, sized for expensive evaluations).' }),
      ...sharedStrategyKeys,
    })
    .strict(),
  smc: z
    .object({
      name: strategyName('smc'),
      smc: SmcSchema.prefault({}).meta({ description: 'smc: sequential Monte Carlo over candidates (SMCEvolve); a finished run restarts from the champion.' }),
      ...sharedStrategyKeys,
    })
    .strict(),
} as const satisfies Record<StrategyName, z.ZodType>;

/** Which strategy owns each key that not every strategy has (derived from the variants above). */
const KEY_OWNER = new Map(
  Object.entries(STRATEGY_VARIANTS).flatMap(([owner, v]) =>
    Object.keys(v.shape)
      .filter((k) => k !== 'name' && !(k in sharedStrategyKeys))
      .map((k) => [k, owner] as const),
  ),
);

const StrategyUnion = z.discriminatedUnion('name', [
  STRATEGY_VARIANTS['champion-challenger'],
  STRATEGY_VARIANTS.sift,
  STRATEGY_VARIANTS.islands,
  STRATEGY_VARIANTS.smc,
]);

/** Before the union: an unknown name, or a key of another strategy (a config written for it), gets a message of its own. */
function strategyKeys(v: z.input<typeof StrategyUnion>, ctx: z.core.$RefinementCtx): z.input<typeof StrategyUnion> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const given: unknown = v.name;
  const name = given === undefined ? 'champion-challenger' : given;
  if (!(STRATEGY_NAMES as readonly unknown[]).includes(name)) {
    ctx.addIssue({ code: 'invalid_value', values: [...STRATEGY_NAMES], input: given, path: ['name'], message: `must be one of ${STRATEGY_NAMES.join(', ')}` });
    return v;
  }
  const out: Record<string, unknown> = { ...v };
  for (const k of Object.keys(out)) {
    const owner = KEY_OWNER.get(k);
    if (!owner || owner === name) continue;
    const why = name === 'champion-challenger' && owner === 'sift' ? ' (champion-challenger evaluates every proposal it makes: `lambda` per cycle)' : '';
    ctx.addIssue({ code: 'custom', path: [k], message: `only used by strategy ${owner}${why}` });
    delete out[k];
  }
  return out as z.input<typeof StrategyUnion>;
}

/** The `strategy` block: one variant per strategy name, each default written once here. */
export const StrategySchema = z.preprocess(strategyKeys, StrategyUnion).prefault({});
/** The parsed `strategy` block (one variant per name). */
export type StrategyConfig = z.infer<typeof StrategySchema>;
