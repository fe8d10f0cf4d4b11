// Public API of `agent-verdict`. Sectioned, explicit named exports; no side effects.

// --- trace model and readers ---
export * from './trace/span'
export * from './trace/trace'
export { TraceFormatError, type TraceFormatLocation } from './trace/errors'
export { eachTrace, loadTrace, loadTraceFile, loadTraces, type TraceInput } from './trace/load'
export { parseTrace, parseTraces, tracesFromValue, type TraceOptions } from './trace/parse'
export { fromReadableSpans, type ReadableSpanLike, type HrTimeLike } from './trace/readers/readable-spans'
export { spanToJSON, type SpanJSON } from './trace/span-json'
export { startTraceReceiver, type TraceReceiver, type TraceReceiverOptions, type TraceReceiverStats } from './trace/receiver/receiver'
export { TraceReceiverTimeoutError, TraceReceiverClosedError, type TraceWaitOptions, type TraceWhere } from './trace/receiver/wait'

// --- taxonomy and diagnosis ---
export * from './taxonomy/index'
export * from './diagnosis/types'
export { diagnose } from './diagnosis/diagnose'
export type { DiagnoseInput } from './diagnosis/input'
export { formatFailingLeaf, metricLabel } from './diagnosis/format'
export { describePolicy, normalizePolicy } from './diagnosis/propagate'
export { estimateTokens, CHARS_PER_TOKEN } from './diagnosis/tokens'

// --- verdicts and the report artifact ---
export * from './verdict/verdict'
export * from './verdict/report'
export * from './verdict/meta'

// --- judges ---
export type * from './judges/types'
export { openaiJudge, isReasoningModel, type OpenAIJudgeOptions } from './judges/openai'
export { bedrockJudge, DEFAULT_BEDROCK_MODEL, type BedrockJudgeOptions } from './judges/bedrock'
export { defineJudge, judgeFromEnv, resolveJudge, parseJudgeSpec, JudgeConfigSchema, type JudgeConfig } from './judges/config'
export { createReliableJudge, type ReliableJudge, type JudgeReliabilityOptions, type ProviderAttempt } from './judges/reliable-judge'
export { callJudge, type CallJudgeOptions, type CallJudgeResult } from './judges/judge-call'
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
  JUDGE_ENV_FORMS,
  type JudgeErrorContext,
  type JudgeNetworkFailure,
} from './judges/errors'
export { withTestDeadline, deadlineOf, RECOMMENDED_TEST_TIMEOUT_MS, type TestTimeLimit } from './judges/deadline'
export { classifyJudgeError, isRetryableStatus } from './judges/classify-error'
export { withRetry, RETRY_DEFAULTS, type RetryOptions, type RetryResult } from './judges/retry'
export { parseRetryAfter } from './judges/retry-after'
export { AdaptiveLimiter, type AdaptiveLimiterOptions, type LimiterOutcome, type LimiterRelease } from './judges/limiter'
export { MODEL_PRICES, ModelPriceSchema, costOf, priceOf, normalizeModelId, type ModelPrice } from './judges/cost'
export { scrubSecrets, scrubDeep, registerSecret, registerHeaderSecrets, redactUrl } from './config/secrets'
export { replyJsonSchema, strictJsonSchema } from './judges/json-schema'
export { parseJudgeText, validateJudgeOutput } from './judges/parse-output'

// --- batch record (docs/decisions/0024-batch-record.md) ---
export { JudgePendingError, applyingHook, batchHookFromEnv, collectingHook, BATCH_PRICE_FACTOR, type BatchHook, type BatchMiss } from './judges/batch/hook'
export { submitBatch, waitBatch, type BatchProviders } from './judges/batch/run'
export { submitOpenAIBatch, waitOpenAIBatch } from './judges/openai-batch'
export { submitBedrockBatch, waitBedrockBatch, type BedrockBatchOptions } from './judges/bedrock-batch'
export { formatBatchProgress, type BatchProgress, type BatchWaitOptions } from './judges/batch/progress'
export { BatchItemSchema, BatchJobSchema, BatchResultSchema, DEFAULT_BATCH_DIR, batchDir, readBatchQueue, readBatchResults, readFallbacks, type BatchItem, type BatchJob, type BatchResult } from './judges/batch/queue'

// --- cassettes ---
export { withCassette, type CassetteJudge, type CassetteOptions } from './cassette/cassette-judge'
export { cassetteKey, canonicalJson } from './cassette/key'
export { CASSETTE_VERSION, CassetteEntrySchema, CassetteFileSchema, CassetteVerdictSchema, cassettePathFor, parseCassette, readCassette, serializeCassette, updateCassette, type CassetteEntry, type CassetteFile, type CassetteVerdict } from './cassette/store'
export { runInCassetteScope } from './cassette/scope'
export { CassetteModeSchema, CassetteSettingsSchema, resolveCassetteSettings, parseCassetteMode, type CassetteMode, type CassetteSettings } from './cassette/modes'
export { CassetteError, CassetteFormatError, CassetteLockError, CassetteModeError, CassetteMissError } from './cassette/errors'
export type { FileLockOptions } from './cassette/lock'

// --- media ---
export { ImageInputError, type ImageInputErrorOptions } from './media/errors'
export { sniffImage, ImageFormatSchema, DetectedKindSchema, type DetectedKind } from './media/sniff'
export { readDimensions, isAnimated, type ImageDimensions } from './media/dimensions'
export { LoadedImageSchema, toImagePart, type LoadedImage } from './media/loaded-image'
export { IMAGE_LIMITS, ImageLimitsSchema, imageLimitsFor, checkImageLimits, type ImageLimits } from './media/limits'
export { fetchImageBytes, clearImageFetchCache, type FetchImageOptions } from './media/fetch'
export { loadImage, type ImageInput, type LoadImageOptions } from './media/load'

// --- metrics ---
export * from './metrics/index'
export {
  detect,
  checkBudget,
  DETECTOR_NAMES,
  DetectorNameSchema,
  DetectorOptionsSchema,
  FindingSchema,
  BudgetSchema,
  BudgetCheckSchema,
  BudgetResultSchema,
  RepeatedCallsOptionsSchema,
  PriceTableSchema,
  ERROR_RULES,
  BEHAVIOR_RULES,
  classifyErrorText,
  ruleForHttpStatus,
  quoteEvidence,
  MAX_EVIDENCE_CHARS,
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
  type ErrorRule,
  type Placement,
  type BehaviorRule,
  type BehaviorRuleId,
} from './metrics/detectors/index'
export { DiagnoseReportSchema, DIAGNOSE_SCHEMA_VERSION, type DiagnoseReport } from './diagnosis/diagnose-report'

// --- statistics (trials, intervals, judge agreement) ---
export * from './stats/index'
export { runTrials, isTrials, type Trials, type RunTrialsOptions } from './trials/run-trials'
export { summarizeTrials, parseTrialRule, describeRule, type TrialRuleOption } from './trials/summarize'
export { TrialRuleSchema, TrialsSummarySchema, type TrialRule, type TrialsSummary } from './verdict/trials'
export { calibrate, CALIBRATION_METRICS, type CalibrateOptions, type MetricCalibration, type Disagreement } from './calibration/calibrate'
export { readLabelledFile, LabelledFileSchema, LabelledCaseSchema, type LabelledFile, type LabelledCase } from './calibration/labelled'
export { renderCalibration } from './calibration/render'
