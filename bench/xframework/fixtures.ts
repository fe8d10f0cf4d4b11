// Where the cross-framework set lives (shared by the generator, the bench and the tests).
import { fileURLToPath } from 'node:url'

export const FIXTURE_DIR = fileURLToPath(new URL('../../test/fixtures/xframework', import.meta.url))
