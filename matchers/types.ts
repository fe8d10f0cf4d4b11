import type { MatcherModules, matchers } from './index'

// `this` and `received` are the runner's; what a user passes is the rest.
type ArgsOf<F> = F extends (this: never, received: never, ...args: infer A) => unknown ? A : never
type ResultOf<F, R, S> = F extends (...args: never[]) => Promise<unknown> ? R : S

/**
 * The matcher signatures as users call them, computed from a table of matcher functions (what
 * `expect.extend` takes): `received` is dropped, an async (judge) matcher returns `R`, a synchronous one
 * `S`. Editor hovers show each matcher's JSDoc from `D`'s members: the table itself when its members are
 * the documented functions (a module namespace, `typeof import('./to-be-polite')`), or the modules the
 * functions are declared in when the table wraps them.
 *
 * @example
 * import type { MatchersOf } from 'agent-verdict/vitest'
 * import type * as politeness from './to-be-polite'
 * declare module 'vitest' { interface Matchers<T = any> extends MatchersOf<typeof politeness> {} }
 */
export type MatchersOf<T, R = Promise<void>, S = void, D = T> = {
  [K in keyof D as K extends keyof T ? K : never]: (...args: ArgsOf<T[K & keyof T]>) => ResultOf<T[K & keyof T], R, S>
}

/**
 * The agent-verdict matchers as users call them, derived from the matcher table in `matchers/index.ts`;
 * `R` is what an async (judge) matcher returns (`Promise<void>`), `S` what a synchronous one returns
 * (`void` in Vitest, the runner's own `R` in Jest, so `.resolves` keeps working). Both runner entries
 * merge this into their `Matchers` interface.
 *
 * @example
 * declare module 'vitest' { interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {} }
 */
export interface AgentVerdictMatchers<R = Promise<void>, S = void>
  extends MatchersOf<typeof matchers, R, S, MatcherModules> {}

// A matcher in the table whose module is missing from MatcherModules would have no type: fail here instead.
type MustBeNever<T extends never> = T
export type UndocumentedMatchers = MustBeNever<Exclude<keyof typeof matchers, keyof MatcherModules>>
