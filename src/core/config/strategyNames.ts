// The search strategies by name: in satlution.yaml, the dashboard and the Steering view (a file of
// its own so the webviews can import it without the whole config schema).
export const STRATEGY_NAMES = ['champion-challenger', 'sift', 'islands', 'smc'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
