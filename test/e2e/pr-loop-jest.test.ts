// The pull-request loop under the real Jest CLI: see pr-loop.ts (one file per runner, so the two loops run side by side).
import { prLoop } from './pr-loop'

prLoop('jest')
