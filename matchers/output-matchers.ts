// The output and multimodal matchers (judge a text or an image against a reference, a source, a rubric), as
// written, before atCallSite. A table of its own so that a file using only these does not load the trace
// matchers' code (span diagnosis, detectors, trace readers) — matchers/lazy-matchers.ts loads by group.
import { toBeCorrect } from './to-be-correct'
import { toBeCorrectForImage } from './to-be-correct-for-image'
import { toBeFaithfulTo } from './to-be-faithful-to'
import { toBeFaithfulToImage } from './to-be-faithful-to-image'
import { toFollowInstructions } from './to-follow-instructions'
import { toHaveQuality } from './to-have-quality'
import { toSatisfyRubric } from './to-satisfy-rubric'

/** The judge matchers over an output (text or image). */
export const outputMatchers = {
  toFollowInstructions,
  toBeCorrect,
  toBeFaithfulTo,
  toBeFaithfulToImage,
  toBeCorrectForImage,
  toHaveQuality,
  toSatisfyRubric,
}
