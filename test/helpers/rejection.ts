import { expect } from 'vitest'

/**
 * The error a promise rejects with, asserted to be an instance of `type` (fails the test if the promise
 * resolves or rejects with anything else).
 *
 * @example
 * const err = await rejectionOf(loadImage('missing.png'), ImageInputError)
 * expect(err.message).toMatch(/no such file/)
 */
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(type)
  return err as E
}
