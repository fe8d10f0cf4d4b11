// Spawnable CLI entry for tests: runs the real dispatcher from source (no build needed).
import { main } from '../../src/cli/main'

process.exitCode = await main(process.argv.slice(2))
