// The labelled-cases file `agent-verdict calibrate` reads: human labels per metric over image-to-text cases.
import { readFile } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import * as z from 'zod'

/**
 * One human-labelled case. `response` is what is judged; `image` is a path relative to the labelled
 * file (or absolute, or a URL); `labels` holds per metric a binary label (1/0 or true/false) or a 1–5 score.
 */
export const LabelledCaseSchema = z.object({
  id: z.string().min(1),
  response: z.string(),
  instruction: z.string().optional(),
  reference: z.string().optional(),
  context: z.string().optional(),
  image: z.string().min(1).optional(),
  labels: z.record(z.string(), z.union([z.number(), z.boolean()])),
})
export type LabelledCase = z.infer<typeof LabelledCaseSchema>

/** A labelled file: `{ about?, cases: [...] }` (the format of `examples/calibration/multimodal-cases.json`). */
export const LabelledFileSchema = z.object({
  about: z.string().optional(),
  cases: z.array(LabelledCaseSchema).min(1),
})
export type LabelledFile = z.infer<typeof LabelledFileSchema>

/**
 * Reads and validates a labelled file and resolves each case's image path against the file's folder.
 * Duplicate ids are refused (a disagreement must name one case).
 *
 * @example
 * const { cases } = await readLabelledFile('examples/calibration/multimodal-cases.json')
 */
export async function readLabelledFile(path: string): Promise<LabelledFile> {
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    throw new Error(
      `agent-verdict calibrate: cannot read ${path}: ${(error as Error).message}. Pass a JSON file { "cases": [{ "id", "response", "labels": { "correctness": 1 } }] }.`,
    )
  }
  const parsed = LabelledFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(
      `agent-verdict calibrate: ${path} is not a labelled file at ${issue.path.join('.') || '(root)'}: ${issue.message}. Each case needs id, response and labels (see docs/statistical-gate.md, "Judge calibration").`,
    )
  }
  const seen = new Set<string>()
  for (const c of parsed.data.cases) {
    if (seen.has(c.id))
      throw new Error(`agent-verdict calibrate: ${path} has two cases with id "${c.id}"; ids must be unique`)
    seen.add(c.id)
  }
  const base = resolve(path, '..')
  return {
    ...parsed.data,
    cases: parsed.data.cases.map((c) =>
      c.image && !isAbsolute(c.image) && !/^[a-z][\w+.-]*:/i.test(c.image)
        ? { ...c, image: resolve(base, c.image) }
        : c,
    ),
  }
}
