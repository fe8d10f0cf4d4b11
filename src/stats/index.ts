// Pure statistics for the gate: intervals, trial rates, agreement. zod/Node only, no I/O.
export { normalQuantile, wilsonInterval, type ProportionInterval } from './interval'
export { passRate, passAtK, passHatK } from './pass-k'
export { confusionMatrix, agreement, cohenKappa, quadraticWeightedKappa, type ConfusionMatrix } from './agreement'
export { averageRanks, spearman } from './rank'
