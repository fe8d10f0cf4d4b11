import { TRAIL_CATEGORIES } from '../taxonomy'
import { PyError, pyStrip, pyTruthy } from './py'

/**
 * The official TRAIL scorer's `normalize_category`, quirks included: case-insensitive exact match
 * (also with ASCII spaces removed), else the first label (in list order) that *contains* the input,
 * else the lower-cased, stripped input itself. Falsy input → `""`; a non-string raises (PyError).
 *
 * @example
 * normalizeCategory('tool')                      // 'Tool-related' (substring of the first label that contains it)
 * normalizeCategory(' Incorrect Problem Identification') // 'Incorrect Problem Identification'
 * normalizeCategory('Task Orchestration Errors') // 'task orchestration errors' (label + suffix matches nothing)
 */
export function normalizeCategory(category: unknown, all: readonly string[] = TRAIL_CATEGORIES): string {
  if (!pyTruthy(category)) return ''
  if (typeof category !== 'string')
    throw new PyError('AttributeError', `category ${JSON.stringify(category)} has no attribute 'lower'`)
  const c = pyStrip(category.toLowerCase())
  // Python's str.replace(" ", "") removes only U+0020; hyphens and other spaces stay.
  const noSpaces = c.replaceAll(' ', '')
  for (const label of all) {
    const l = label.toLowerCase()
    if (c === l || noSpaces === l.replaceAll(' ', '')) return label
  }
  for (const label of all) {
    if (label.toLowerCase().replaceAll(' ', '').includes(noSpaces)) return label
  }
  return c
}
