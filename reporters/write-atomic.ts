import { randomBytes } from 'node:crypto'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/**
 * Writes `content` to `path` via a temp file in the same directory + rename, creating parent
 * directories, so a reader (or a crash) never sees half a report. Returns the absolute path.
 *
 * @example
 * await writeFileAtomic('reports/agent-verdict-report.json', json)
 */
export async function writeFileAtomic(path: string, content: string): Promise<string> {
  const target = resolve(path)
  await mkdir(dirname(target), { recursive: true })
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(tmp, content, 'utf8')
    await rename(tmp, target)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  return target
}
