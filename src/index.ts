// Public API of `agent-verdict`: what docs/api.md documents ("API of the main entry" lists every
// name below), by name, no `export *`. Sectioned; no side effects. Internals (retry, limiter, scrubbing,
// cassette keys, prompt builders, …) stay importable by path inside this repository only; adding a name here
// changes api-report/agent-verdict.api.txt (test/api), so widening the surface is a reviewed diff.

// --- trace model and readers ---
export type { Span, SpanKind, SpanStatus, SpanEvent, TokenCounts, ToolCall, Message } from './trace/span'
export { Trace, type SpanQuery, type TraceWarning } from './trace/trace'
export { TraceFormatError, type TraceFormatLocation } from './trace/errors'
export { eachTrace, loadTrace, loadTraceFile, loadTraces, type TraceInput } from './trace/load'
export type { TraceOptions } from './trace/parse'
export { fromReadableSpans, type ReadableSpanLike, type HrTimeLike } from './trace/readers/readable-spans'
export {
  startTraceReceiver,
  type TraceReceiver,
  type TraceReceiverOptions,
  type TraceReceiverStats,
} from './trace/receiver/receiver'
export {
  TraceReceiverTimeoutError,
  TraceReceiverClosedError,
  type TraceWaitOptions,
  type TraceWhere,
} from './trace/receiver/wait'
export {
  captureTrace,
  type CapturedTrace,
  type CaptureTraceOptions,
  type SettledCapture,
} from './capture/capture-trace'
export { agentVerdictSpanProcessor, type AgentVerdictSpanProcessor } from './capture/registry'
export { TraceCaptureError } from './capture/errors'

// --- taxonomy and diagnosis ---
export {
  TRAIL_CATEGORIES,
  CATEGORY_TREE,
  isErrorCategory,
  type ErrorCategory,
  type CategoryGroup,
} from './taxonomy/index'
export {
  DEFAULT_BUDGET_TOKENS,
  type AgentDiagnosis,
  type AgentMetric,
  type DiagnoseOptions,
  type DiagnoseProgress,
  type Diagnosis,
  type DiagnosisSpan,
  type DiagnosisStats,
  type FailingLeaf,
  type PropagationPolicy,
  type SpanState,
  type TraceVerdict,
} from './diagnosis/types'
export { diagnose } from './diagnosis/diagnose'
export type { DiagnoseInput } from './diagnosis/input'

// --- verdicts and the report artifact ---
export {
  VerdictSchema,
  VerdictLevelSchema,
  VerdictScaleSchema,
  VerdictOutcomeSchema,
  VerdictAssertionSchema,
  JudgeInfoSchema,
  type Verdict,
  type VerdictLevel,
  type VerdictScale,
  type VerdictOutcome,
  type VerdictAssertion,
  type JudgeInfo,
} from './verdict/verdict'
export {
  REPORT_SCHEMA_VERSION,
  ReportSchema,
  ReportTestSchema,
  ReportTotalsSchema,
  ReportTraceSchema,
  ReportSpanSchema,
  type Report,
  type ReportTest,
  type ReportTotals,
  type ReportTrace,
} from './verdict/report'

// --- judges ---
export type { Judge, JudgeRequest, JudgeResponse, JudgeUsage, ContentPart, ImageFormat } from './judges/types'
export { type OpenAIClientLike, openaiJudge, type OpenAIJudgeOptions } from './judges/openai'
export { bedrockJudge, DEFAULT_BEDROCK_MODEL, type BedrockJudgeOptions } from './judges/bedrock'
export { defineJudge, type JudgeConfig } from './judges/config'
export {
  JudgeError,
  JudgeRateLimitError,
  JudgeTimeoutError,
  JudgeServiceError,
  JudgeAuthError,
  JudgeRequestError,
  JudgeOutputError,
  JudgeConfigError,
  JudgeAbortError,
  JudgeDeadlineError,
  type JudgeErrorContext,
  type JudgeNetworkFailure,
} from './judges/errors'
export { MODEL_PRICES, type ModelPrice } from './judges/cost'

// --- batch record (docs/decisions/0024-batch-record.md) ---
export { JudgePendingError } from './judges/batch/hook'

// --- cassettes ---
export type { CassetteMode } from './cassette/modes'
export {
  CassetteError,
  CassetteFormatError,
  CassetteLockError,
  CassetteModeError,
  CassetteMissError,
} from './cassette/errors'

// --- media ---
export { ImageInputError } from './media/errors'
export type { ImageInput } from './media/load'

// --- metrics ---
export {
  evaluateInstructionFollowing,
  evaluateCorrectness,
  evaluateFaithfulness,
  evaluateQuality,
  evaluateRubric,
  type EvaluateOptions,
  type InstructionFollowingInput,
  type CorrectnessInput,
  type FaithfulnessInput,
  type QualityInput,
  type RubricInput,
} from './metrics/index'
export {
  detect,
  checkBudget,
  DETECTOR_NAMES,
  type Finding,
  type DetectorName,
  type DetectorOptions,
  type Budget,
  type BudgetCheck,
  type BudgetName,
  type BudgetResult,
  type CheckBudgetOptions,
  type RepeatedCallsOptions,
  type PriceTable,
  type FrameworkProfile,
} from './metrics/detectors/index'

// --- statistics (trials, intervals, judge agreement) ---
export {
  normalQuantile,
  wilsonInterval,
  passRate,
  passAtK,
  passHatK,
  confusionMatrix,
  agreement,
  cohenKappa,
  quadraticWeightedKappa,
  spearman,
  type ProportionInterval,
  type ConfusionMatrix,
} from './stats/index'
export { runTrials, type Trials, type RunTrialsOptions } from './trials/run-trials'
export type { TrialRuleOption } from './trials/summarize'
export type { TrialRule, TrialsSummary } from './verdict/trials'
export {
  calibrate,
  CALIBRATION_METRICS,
  type CalibrateOptions,
  type MetricCalibration,
  type Disagreement,
} from './calibration/calibrate'
export {
  readLabelledFile,
  LabelledFileSchema,
  LabelledCaseSchema,
  type LabelledFile,
  type LabelledCase,
} from './calibration/labelled'
