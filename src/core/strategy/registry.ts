// The strategies by name: satlution.yaml's `strategy.name` picks the factory, which gets that
// strategy's parsed settings. The only place that maps names to strategies.
import type { Config, StrategyConfig } from '../config/schema';
import type { StrategyName } from '../config/strategyNames';
import { championChallenger } from './championChallenger';
import { islands } from './islands';
import { sift } from './sift';
import { smc } from './smc';
import type { Strategy } from './seam';

const FACTORIES: { [N in StrategyName]: (cfg: Extract<StrategyConfig, { name: N }>) => Strategy } = {
  'champion-challenger': championChallenger,
  sift,
  islands,
  smc,
};

/** The strategy satlution.yaml names, with its settings. */
export function strategyFor(config: Config): Strategy {
  // TypeScript cannot tie the factory to the variant by itself; the mapped type above does.
  const make = FACTORIES[config.strategy.name] as (cfg: StrategyConfig) => Strategy;
  return make(config.strategy);
}
