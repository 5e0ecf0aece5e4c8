// The smc strategy (SMCEvolve): each cycle is one Metropolis-Hastings move of a particle; the state
// and its moves are in smcState.ts. Every coded proposal is evaluated; promotion is the greedy rule.
import { DEFAULT_SMC, type Config, type SmcConfig, type StrategyConfig } from '../config/schema';
import { acceptWithMargin } from '../decide/promotionRule';
import { smcParent, smcRecord } from './smcState';
import type { Strategy } from './seam';

/** The smc settings of satlution.yaml; the defaults when another strategy runs (the dashboard may still show an earlier run). */
export function smcConfig(config: Config): SmcConfig {
  return 'smc' in config.strategy ? config.strategy.smc : DEFAULT_SMC;
}

/** The smc strategy for its settings. */
export function smc(cfg: Extract<StrategyConfig, { name: 'smc' }>): Strategy {
  const s = cfg.smc;
  return {
    name: 'smc',
    proposals: 1,
    screens: true,
    needsJudge: false,
    parent: ({ ws, cycle, champion, championJson }) => smcParent(ws, s, cycle, champion, championJson),
    select: async (coded) => ({ evaluate: coded.filter((p) => p.coded).map((p) => p.candidate), discarded: [] }),
    record: async (o) => (await smcRecord(o.ws, s, o)) ?? undefined,
    accept: acceptWithMargin(cfg.min_improvement_pct),
  };
}
