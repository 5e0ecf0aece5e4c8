// Candidate statuses. Pure zod, no Node APIs: the webviews share this module.
import { z } from 'zod';

export const CandidateStatus = z.enum([
  'seed', // imported baseline (SATLUTION_0)
  'planning',
  'coding',
  'evaluating',
  'failed', // failed a gate; kept with its failure to feed the next plan
  'verified', // passed the correctness gates
  'evaluated', // performance measured
  'discarded',
  'unknown', // found on disk with no record (recovered)
]);
export type CandidateStatus = z.infer<typeof CandidateStatus>;
