// Public API of `agent-verdict`. Sectioned, explicit named exports; no side effects.

// --- trace model and readers ---
export * from './trace/span'
export * from './trace/trace'

// --- taxonomy and diagnosis ---
export * from './diagnosis/taxonomy'

// --- verdicts and the report artifact ---
export * from './verdict/verdict'
export * from './verdict/report'
export * from './verdict/meta'

// --- judges ---
export type * from './judges/types'

// --- cassettes ---

// --- media ---

// --- metrics ---
