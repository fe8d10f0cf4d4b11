// "Did you mean": the closest accepted name to a misspelt one, for the CLI's commands and flags and the judge
// spec's options. It lives in src/config, a leaf, so both the CLI and the spec parser use the one rule.

/**
 * Edit distance between two words (insertions, deletions, substitutions and swaps of neighbours each cost 1),
 * compared case-insensitively: `--Judge` is one keystroke from `--judge`, not five.
 *
 * @example
 * editDistance('diagnoze', 'diagnose') // 1
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)])
  for (let j = 1; j <= t.length; j++) rows[0][j] = j
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, rows[i - 2][j - 2] + 1)
      rows[i][j] = best
    }
  }
  return rows[s.length][t.length]
}

/**
 * The accepted name closest to `word`, or `undefined` when none is close: at most a third of the word's
 * length away (at least 1, at most 3 edits), so `--jdge` finds `--judge` and `--xyz` finds nothing. A name that
 * starts with the word (`--cass` → `--cassette`), or that the word starts with (`retries` → `retry`), counts as
 * close too. Ties go to the first name listed.
 *
 * @example
 * closestName('diagnoze', ['diagnose', 'bench']) // 'diagnose'
 * closestName('frobnicate', ['diagnose', 'bench']) // undefined
 */
export function closestName(word: string, names: readonly string[]): string | undefined {
  const w = word.trim()
  if (!w) return undefined
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)))
  let best: { name: string; distance: number } | undefined
  for (const name of names) {
    const distance = editDistance(w, name)
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance }
  }
  if (best) return best.name
  if (w.length < 3) return undefined
  const lower = w.toLowerCase()
  // A cut-short name (`--cass`) or one with a tail (`retries`, `timeout2`) is close to the name it starts or holds.
  return (
    names.find((n) => n.toLowerCase().startsWith(lower)) ??
    names.find((n) => n.length >= 4 && lower.startsWith(n.toLowerCase()))
  )
}
