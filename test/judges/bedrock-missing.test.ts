// The Bedrock SDK is an optional peer: a project that configures a Bedrock judge without installing it gets a
// setup error naming the install command, never an unjudgeable verdict or a bare "Cannot find package".
import { afterEach, describe, expect, it } from 'vitest'
import { bedrockJudge } from '../../src/judges/bedrock'
import { JudgeConfigError } from '../../src/judges/errors'
import { prewarmJudge } from '../../src/judges/prewarm'
import { BEDROCK_INSTALL, loadBedrock, sdkImports } from '../../src/judges/sdk'
import { likertRequest } from './helpers'

const realImport = sdkImports.bedrock
afterEach(() => {
  sdkImports.bedrock = realImport
})

/** What Node's import() rejects with when the package is not in node_modules. */
function notInstalled(): Promise<never> {
  const err = Object.assign(new Error("Cannot find package '@aws-sdk/client-bedrock-runtime'"), {
    code: 'ERR_MODULE_NOT_FOUND',
  })
  return Promise.reject(err)
}

describe('Bedrock judge without @aws-sdk/client-bedrock-runtime installed', () => {
  it('a judgement fails with a JudgeConfigError that names the install command', async () => {
    sdkImports.bedrock = notInstalled
    const judge = bedrockJudge({
      region: 'us-east-1',
      clientConfig: { credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 's' } },
    })
    const error = await judge.evaluate(likertRequest()).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(JudgeConfigError)
    expect((error as Error).message).toContain(BEDROCK_INSTALL)
    expect(BEDROCK_INSTALL).toBe('npm install -D @aws-sdk/client-bedrock-runtime')
  })

  it('the warm-up of a Bedrock eval file says the same, and installing it afterwards is picked up', async () => {
    sdkImports.bedrock = notInstalled
    await expect(loadBedrock()).rejects.toThrow(BEDROCK_INSTALL)
    sdkImports.bedrock = realImport
    await expect(loadBedrock()).resolves.toHaveProperty('ConverseCommand')
    // The configured judge's warm-up goes through the same loader.
    await expect(prewarmJudge({ AGENT_VERDICT_JUDGE: 'bedrock' })).resolves.toBe('bedrock')
  })

  it('another import failure is not disguised as a missing install', async () => {
    sdkImports.bedrock = () => Promise.reject(new SyntaxError('Unexpected token in the SDK'))
    await expect(loadBedrock()).rejects.toThrow(SyntaxError)
  })
})
