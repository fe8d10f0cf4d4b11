// A stand-in for a user's test suite, spawned by `record --batch`: five judge assertions through a
// cassette and the real openai judge configured from the environment. Writes what it got to argv[3];
// exits 1 if any verdict is missing (pending in a collecting run, or a live call that failed).
import { writeFileSync } from 'node:fs'
import { withCassette } from '../../src/cassette/cassette-judge'
import { openaiJudge } from '../../src/judges/openai'
import { verdictRequest } from '../cassette/helpers'

const [cassetteFile, outFile] = process.argv.slice(2)
const cassette = withCassette(openaiJudge({ model: 'gpt-4.1', provider: 'openai', maxAttempts: 1 }), {
  file: cassetteFile,
})
const settled = await Promise.allSettled(
  Array.from({ length: 5 }, (_, i) =>
    cassette.evaluate(verdictRequest(`assertion ${i}: the refund was ${i * 10} EUR`)),
  ),
)
await cassette.flush()
writeFileSync(
  outFile,
  JSON.stringify(
    settled.map((s) =>
      s.status === 'fulfilled' ? { output: s.value.output } : { error: String(s.reason?.message ?? s.reason) },
    ),
  ),
)
process.exitCode = settled.every((s) => s.status === 'fulfilled') ? 0 : 1
