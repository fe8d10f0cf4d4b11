// Reading and writing a test file's agent recording with the verdict cassette's own helpers: one lock file shared by
// every process, the file re-read under it, an atomic write (temp file, fsync, rename). A killed writer loses at
// most the call it was writing; concurrent workers merge.
import { mkdir, readFile, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { withFileLock } from '../cassette/lock'
import { inPathOrder } from '../cassette/store'
import { removeStaleTemps, writeAtomic } from '../files/atomic'
import { parseRecording, RECORDING_VERSION, type RecordingFile, serializeRecording } from './format'

/**
 * Where a test file's agent calls are recorded: `__recordings__/<name>.json` beside it, next to `__verdicts__/`.
 *
 * @example
 * recordingPathFor('evals/refund.eval.ts') // 'evals/__recordings__/refund.eval.ts.json'
 */
export function recordingPathFor(testFile: string): string {
  return join(dirname(testFile), '__recordings__', `${basename(testFile)}.json`)
}

/**
 * A recording file, or an empty one when there is none. A corrupt file throws, naming it and the fix.
 *
 * @example
 * const { tests } = await readRecording('evals/__recordings__/refund.eval.ts.json')
 */
export async function readRecording(file: string): Promise<RecordingFile> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: RECORDING_VERSION, tests: [] }
    throw err
  }
  return parseRecording(text, file)
}

/**
 * Changes a recording file under its lock: re-reads it, applies `change`, writes it atomically (or removes it when
 * no test has a call left). Writes from one process queue before the lock. Resolves to the file as written.
 *
 * @example
 * await updateRecording(path, (file) => { file.tests.push({ test: 'a', calls }) })
 */
export async function updateRecording(
  file: string,
  change: (recording: RecordingFile) => void,
): Promise<RecordingFile> {
  const path = resolve(file)
  const run = async () => {
    await mkdir(dirname(path), { recursive: true })
    return withFileLock(`${path}.lock`, async () => {
      await removeStaleTemps(dirname(path))
      const recording = (await asLastWritten(path)) ?? (await readRecording(path))
      change(recording)
      lastWritten.delete(path)
      if (recording.tests.every((t) => t.calls.length === 0)) await unlink(path).catch(() => {})
      else {
        await writeAtomic(path, serializeRecording(recording))
        const written = await stampOf(path)
        if (written) lastWritten.set(path, { stamp: written, recording: copy(recording) })
      }
      return recording
    })
  }
  return inPathOrder(path, run)
}

/**
 * The file as this process last wrote it, by path. A recording is rewritten whole on every recorded call; re-reading
 * and re-checking it each time made recording cost grow with the file (most of a call's overhead in the bench). It is
 * re-read when anything else has written it since (another worker's rename gives it a new inode and times).
 */
const lastWritten = new Map<string, { stamp: string; recording: RecordingFile }>()

const stampOf = (path: string): Promise<string | undefined> =>
  stat(path, { bigint: true }).then(
    (info) => `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
    () => undefined,
  )

/** A copy `change` may replace tests of (it never edits a call in place: calls are kept or replaced whole). */
const copy = (recording: RecordingFile): RecordingFile => ({ ...recording, tests: [...recording.tests] })

async function asLastWritten(path: string): Promise<RecordingFile | undefined> {
  const known = lastWritten.get(path)
  if (!known) return undefined
  return (await stampOf(path)) === known.stamp ? copy(known.recording) : undefined
}
