// Output and multimodal metrics: prompts, reply schemas, the runner and the evaluate* functions.
export {
  MetricScaleSchema,
  MetricImageSchema,
  isLoadedImage,
  normalizeScore,
  formatOnScale,
  type MetricScale,
  type MetricImage,
  type MetricDefinition,
  type MetricPrompt,
} from './metric'
export {
  BinaryOutputSchema,
  LikertOutputSchema,
  QualityOutputSchema,
  type BinaryOutput,
  type LikertOutput,
  type QualityOutput,
} from './output-schemas'
export { runMetric, SUBJECT_MAX_CHARS, type RunMetricOptions } from './run-metric'
export {
  instructionFollowingMetric,
  InstructionFollowingInputSchema,
  type InstructionFollowingInput,
} from './instruction-following'
export { correctnessMetric, CorrectnessInputSchema, type CorrectnessInput } from './correctness'
export { faithfulnessMetric, FaithfulnessInputSchema, type FaithfulnessInput } from './faithfulness'
export { qualityMetric, QualityInputSchema, likertMinToThreshold, type QualityInput } from './quality'
export { rubricMetric, RubricInputSchema, type RubricInput } from './rubric'
export {
  evaluateInstructionFollowing,
  evaluateCorrectness,
  evaluateFaithfulness,
  evaluateQuality,
  evaluateRubric,
  type EvaluateOptions,
} from './evaluate'
