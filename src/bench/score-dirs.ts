import { existsSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { TrailReadError, scoreTrailInputs, type TrailScores, type TrailScoringInput } from './trail-scorer'

// Python's open() in text mode: strict UTF-8 (a BOM stays a character) and universal newlines.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Read a file as Python's `open(path).read()` would, or a TrailReadError saying why not.
 *
 * @example
 * const text = await readPythonText('predictions/GAIA/0035f455b3ff2295167a844f04d85d34.json')
 */
export async function readPythonText(path: string): Promise<string | TrailReadError> {
  try {
    return UTF8.decode(await readFile(path)).replace(/\r\n?/g, '\n')
  } catch (err) {
    return new TrailReadError(`cannot read ${path} as UTF-8 text: ${(err as Error).message}`)
  }
}

/**
 * Score one split like `calculate_scores.py`'s `main(gt_dir, gen_dir)`: every `*.json` in `goldDir`
 * (hidden files excluded, as Python's glob does) against the file of the same name in
 * `predictionsDir`, which holds raw judge replies (any text around the JSON is tolerated).
 *
 * @example
 * const gaia = await scoreTrailDirs('../shared/datasets/trail/annotations_gaia', 'predictions/GAIA')
 * console.log(gaia.joint_accuracy, gaia.localization_precision)
 */
export async function scoreTrailDirs(goldDir: string, predictionsDir: string): Promise<TrailScores> {
  if (!existsSync(goldDir))
    throw new Error(`gold annotations folder ${goldDir} does not exist; pass a folder of <trace_id>.json gold files`)
  if (!existsSync(predictionsDir))
    throw new Error(
      `predictions folder ${predictionsDir} does not exist; pass the folder the predictions were written to`,
    )
  const names = (await readdir(goldDir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()
  const inputs: TrailScoringInput[] = []
  for (const file of names) {
    const predictionPath = join(predictionsDir, file)
    // The scorer checks for the prediction before it opens the gold file.
    if (!existsSync(predictionPath)) inputs.push({ file, gold: '', prediction: undefined })
    else
      inputs.push({
        file,
        gold: await readPythonText(join(goldDir, file)),
        prediction: await readPythonText(predictionPath),
      })
  }
  return scoreTrailInputs(inputs)
}
