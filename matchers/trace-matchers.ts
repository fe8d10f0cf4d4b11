// The trace matchers, as written, before atCallSite: the async ones (judged, and accepting runTrials results)
// and the two deterministic ones that answer synchronously. See matchers/output-matchers.ts for why a table of
// its own.
import { toCallTool } from './to-call-tool'
import { toCompleteTask } from './to-complete-task'
import { toFollowPlan } from './to-follow-plan'
import { toHaveNoFailingSpans } from './to-have-no-failing-spans'
import { toStayWithinBudget } from './to-stay-within-budget'
import { toUseToolsEfficiently } from './to-use-tools-efficiently'
import { withTraceTrials } from './with-trials'

/** The async trace matchers; each also accepts `runTrials` results with a `trials` rule. */
export const traceMatchers = {
  toHaveNoFailingSpans: withTraceTrials('toHaveNoFailingSpans', toHaveNoFailingSpans, 0),
  toUseToolsEfficiently: withTraceTrials('toUseToolsEfficiently', toUseToolsEfficiently, 0),
  toCompleteTask: withTraceTrials('toCompleteTask', toCompleteTask, 1),
  toFollowPlan: withTraceTrials('toFollowPlan', toFollowPlan, 0),
}

/** The deterministic matchers that answer synchronously (no judge): `expect(trace).toCallTool('search')`. */
export const syncMatchers = { toCallTool, toStayWithinBudget }
