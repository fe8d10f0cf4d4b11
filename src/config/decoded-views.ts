// Layered decoding for the scrubber: a judge can echo a key as JSON string escapes (`\u0073k-…`), percent-encoded
// by any encoder (upper/lower hex, `+` for space, some characters only), as HTML entities (`&#x2F;`, `&sol;`,
// with or without `;`), or as layers of these. Each layer is decoded with a map from every decoded character
// back to the span of the original text it came from, so a match in any layer redacts exactly the original
// characters that spell the secret (to its end, not to the first `&`), and nothing else.

import {
  decodeLayer,
  decodeText,
  type DecodedView,
  escapeAt,
  HTML_FAMILY,
  identityView,
  JSON_FAMILY,
  NEXT_ESCAPE,
  PCT_FAMILY,
  type Reading,
} from './escape-units'

export type { DecodedView } from './escape-units'

/** Characters that can begin an escape in some layer: a text without them decodes to itself. */
export const ESCAPE_CHAR = /[\\%&]/

/** Enough for any real reply (JSON in a URL in HTML is 3); bounds the work on hostile input. */
const MAX_LAYERS = 6

/** Bounds the work on hostile input; the readings are searched likeliest first, so the bound drops the unlikely ones. */
const MAX_VIEWS = 256

const LENIENT_ALL: Reading = { families: JSON_FAMILY | PCT_FAMILY | HTML_FAMILY, entities: 'lenient' }

/**
 * The forms `text` decodes to, each layer decoded every way a reader could: every non-empty subset of the
 * escape families present in it (an outer layer that mixes two families may cut through an inner escape of the
 * third: `%5C&#117;0073` is `\u0073` with its `\` percent-encoded and its `u` an entity), each with lenient and
 * strict entities (and the ascii reading when it differs), to a fixed point: a form is decoded again until no
 * reading changes it, at most 6 layers deep and 256 forms in all, the likeliest first (see `readings`). Empty
 * when `text` holds no escape.
 */
export function decodedViews(text: string): LazyView[] {
  const views: LazyView[] = []
  if (!ESCAPE_CHAR.test(text)) return views
  const byText = new Map<string, LazyView>([[text, { text, path: [], root: text }]])
  const kidsOf = new Map<string, LazyView[]>()
  const expandedWith = new Map<string, number>()
  let full = false
  // The forms one layer down, in the order of `readings` (the first is the likeliest decoding).
  const kids = (view: LazyView): LazyView[] => {
    let list = kidsOf.get(view.text)
    if (list) return list
    list = []
    for (const reading of readings(view.text)) {
      const decoded = decodeText(view.text, reading)
      if (decoded === undefined) continue
      let kid = byText.get(decoded)
      if (!kid) {
        if (views.length >= MAX_VIEWS) {
          full = true
          break
        }
        kid = { text: decoded, path: [...view.path, reading], root: text }
        byText.set(decoded, kid)
        views.push(kid)
      }
      if (!list.includes(kid)) list.push(kid)
    }
    kidsOf.set(view.text, list)
    return list
  }
  // Limited discrepancy search: every path that takes the likeliest reading at each layer, then every path that
  // departs from it once, then twice… so the bound cuts off the least likely readings, wherever they are.
  // Set when a walk left a reading untried: only then is a walk with one more departure worth making.
  let cut = false
  const expand = (view: LazyView, discrepancies: number) => {
    if (full || view.path.length >= MAX_LAYERS || !ESCAPE_CHAR.test(view.text)) return
    if ((expandedWith.get(view.text) ?? -1) >= discrepancies) return
    expandedWith.set(view.text, discrepancies)
    const list = kids(view)
    if (list.length > discrepancies + 1) cut = true
    for (let i = 0; i < list.length && i <= discrepancies; i++) expand(list[i], discrepancies - (i === 0 ? 0 : 1))
  }
  const root = byText.get(text)!
  for (let d = 0, more = true; more && !full; d++) {
    cut = false
    expand(root, d)
    more = cut
  }
  return views
}

/**
 * The readings worth trying on `text`, likeliest first: every present family at once, then, when a family's escape
 * character stands bare in `text` (`\&`, `% `, `& `: an encoder escapes its own escape character, so that family
 * is likely an inner layer's), the subset without it, then the other subsets of the present families.
 */
function readings(text: string): Reading[] {
  const { present, bare, semiless } = scanEscapes(text)
  const likely = present & ~bare
  const ascii = semiless && /&#(?:[xX][0-9a-fA-F]{2,}|[0-9]{3,})(?![0-9a-fA-F;])/.test(text)
  const out: Reading[] = []
  const add = (families: number) => {
    out.push({ families, entities: 'lenient' })
    // Strict and ascii differ from lenient only on an entity without its `;`.
    if ((families & HTML_FAMILY) === 0 || !semiless) return
    out.push({ families, entities: 'strict' })
    if (ascii) out.push({ families, entities: 'ascii' })
  }
  if (present === 0) return out
  add(present)
  if (likely !== 0 && likely !== present) add(likely)
  // The other subsets of the present families, largest first.
  for (let families = (present - 1) & present; families > 0; families = (families - 1) & present)
    if (families !== likely) add(families)
  return out
}

/**
 * One pass over the escape characters of `text`: the families (masks) with at least one escape that decodes
 * (`present`: a family with none decodes to nothing, so no reading needs it) and with an escape character that
 * starts none (`bare`), and whether an entity without `;` decodes (`semiless`).
 */
function scanEscapes(text: string): { present: number; bare: number; semiless: boolean } {
  let present = 0
  let bare = 0
  let semiless = false
  const next = NEXT_ESCAPE[JSON_FAMILY | PCT_FAMILY | HTML_FAMILY]
  next.lastIndex = 0
  for (let m = next.exec(text); m !== null; m = next.exec(text)) {
    const c = text[m.index]
    const family = c === '\\' ? JSON_FAMILY : c === '%' ? PCT_FAMILY : HTML_FAMILY
    const unit = escapeAt(text, m.index, LENIENT_ALL)
    if (!unit) {
      bare |= family
      continue
    }
    present |= family
    if (family === HTML_FAMILY && text[m.index + unit.length - 1] !== ';') semiless = true
    next.lastIndex = m.index + unit.length
  }
  return { present, bare, semiless }
}

/**
 * A decoded form found by `decodedViews`: its text only. The map back to the original is built on demand
 * (`mapView`), for the rare form that holds a match: building it for every form made scrubbing 10x slower.
 */
export interface LazyView {
  text: string
  path: Reading[]
  root: string
}

/** The view of a decoded form, with the map from each of its characters to the original. */
export function mapView(lazy: LazyView): DecodedView {
  let view = identityView(lazy.root)
  for (const reading of lazy.path) view = decodeLayer(view, reading) ?? view
  return view
}
