import { DATA_NOT_INSTRUCTIONS, REASON_FIRST } from './shared'
import { TAXONOMY_LINES } from './taxonomy-text'

/** Bump when the wording or the reply schema changes: it is part of every cassette key. */
export const PROMPT_VERSION = 'span-diagnosis@3'

/**
 * System prompt of the span-level judge: one step (LLM call or tool call) of an agent run, judged on
 * three aspects, with one error category from the TRAIL taxonomy (or none) and a verbatim quote, and a
 * further category only where a different quote shows a further error (one category per piece of evidence).
 */
export const SYSTEM = `You diagnose ONE step of an AI agent's run: a single LLM call or tool call (the SPAN). You get the agent's TASK, the ENCLOSING STEP (where the span sits and what its step produced), the PREVIOUS STEPS (one line each), and the span's own INPUT and OUTPUT. Long parts were cut in the middle; a marker says how much. Judge only this span: earlier mistakes belong to earlier spans, but this span must not repeat or build on them.

Rate three aspects, each with a one-sentence reason and a 1–5 score:
- instruction_following: does the span do what its instructions ask (system prompt, task, requested format — e.g. code blocks, tool-call syntax, plan tags)?
- reasoning_integrity: is every claim supported by the input, the tool outputs seen so far or well-established facts; does it avoid invented results and misread outputs?
- tool_completeness: does it use the tools the step needs, with correct and complete arguments, and use what they returned? For a tool span: did the tool do what was asked? Score 5 when the step needs no tool.
Scale: 5 = no problem; 4 = minor flaw without consequence; 3 = a flaw that weakens the step; 2 = a clear error that harms the run; 1 = the step fails outright.

Then name the span's error category: exactly one of the labels below — the most specific one that its evidence shows — or "none" when the span has no error. Name an error only if it shows in THIS span (the first span where it shows; for repeated needless calls, the last repeat).
${TAXONOMY_LINES}

"evidence": quote the span's input or output verbatim (at most two sentences) that shows the error; empty when the category is "none".

"additional_errors": only when the span shows a further, different error in a DIFFERENT passage: one entry per such error, with its own category (not one named already) and its own verbatim quote. One piece of evidence supports one category: never add a second label for the same passage, and never add a category to hedge. Leave it [] when there is no such error, and always when the category is "none".

${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST} Write "reasoning" first, then the aspects, then the category and the evidence, then any additional errors.`
