// toUseToolsEfficiently, toCompleteTask and toFollowPlan: the agent-level pass on real TRAIL traces and OTel SDK
// spans, judged by the fake judge through the real openai client.
import '../../../matchers/vitest'
import { describe, expect, test } from 'vitest'
import { loadTrace } from '../../../src/trace/load'
import { at, createRecorder, record } from '../../helpers/otel'
import { textOf, useJudgeHarness } from '../../support/recording-judge'
import { GAIA_SUBAGENT, SWE_RUN, metaOf, otelRun, rejectionOf } from './helpers'

const agentRule = (name: string, fields: Record<string, unknown>) => ({
  name,
  when: { schemaName: 'agent_diagnosis' },
  respond: { reason: `fake: ${name}`, fields },
})

const h = useJudgeHarness()

/** A run that calls the same search three times with the same arguments, recorded by the real SDK. */
function repetitiveRun() {
  const recorder = createRecorder({ seed: 11 })
  const search = (i: number) => ({
    name: 'execute_tool web_search',
    start: at(100 + i * 1000),
    end: at(900 + i * 1000),
    ok: true,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'web_search',
      'gen_ai.tool.call.arguments': '{"query":"order A-1042 status"}',
      'gen_ai.tool.call.result': 'no results',
    },
  })
  record(recorder.tracer, {
    name: 'invoke_agent support',
    start: at(0),
    end: at(4000),
    ok: true,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
    children: [0, 1, 2].map(search),
  })
  return recorder
}

describe('toUseToolsEfficiently', () => {
  test('pass: one agent-level call, no span judging; tool abuse and tool coverage verdicts on the test', async ({
    task,
  }) => {
    const trace = await loadTrace(GAIA_SUBAGENT)
    await expect(trace).toUseToolsEfficiently({ judge: h.judge })
    expect(h.bodies.map((b) => b.response_format?.json_schema?.name)).toEqual(['agent_diagnosis'])
    expect(metaOf(task).verdicts.map((v) => [v.metric, v.level, v.outcome])).toEqual([
      ['agent.tool_abuse', 'agent', 'pass'],
      ['agent.tool_coverage', 'agent', 'pass'],
    ])
    expect(metaOf(task).traces).toBeUndefined()
  })

  test('fail: metric, score vs threshold and reason for each metric, pinned', async () => {
    h.fake.setRules([
      agentRule('coverage', {
        tool_coverage: { score: 2, reason: 'never opened the attached audio with a tool that can transcribe it' },
      }),
    ])
    const error = await rejectionOf(expect(GAIA_SUBAGENT).toUseToolsEfficiently({ judge: h.judge }))
    // The deterministic facts' wording belongs to the diagnosis; the message layout is ours.
    expect(error.message.replace(/\(deterministic check: [^)]*\)/, '(deterministic check: …)')).toMatchInlineSnapshot(`
      "expect(received).toUseToolsEfficiently(options)

      Tool coverage: fail (2/5, min 3)
      Reason: never opened the attached audio with a tool that can transcribe it
      Tool abuse: pass (5/5, min 3)
      Reason: fake: coverage (deterministic check: …)
      Judge: openai-compatible:fake-judge · agent-diagnosis@2"
    `)
  })

  test('.not, and a threshold of its own', async () => {
    h.fake.setRules([agentRule('abuse-4', { tool_abuse: { score: 4, reason: 'one redundant call' } })])
    await expect(GAIA_SUBAGENT).toUseToolsEfficiently({ judge: h.judge })
    await expect(GAIA_SUBAGENT).not.toUseToolsEfficiently({ judge: h.judge, threshold: 1 })
    const error = await rejectionOf(expect(GAIA_SUBAGENT).not.toUseToolsEfficiently({ judge: h.judge }))
    expect(error.message).toContain('Tool abuse: pass (4/5, min 3) — expected it not to pass')
  })

  test('unjudgeable: a judge fault fails the assertion, under .not too, with the cause', async ({ task }) => {
    h.fake.setFaults([{ type: 'malformed-json', when: { schemaName: 'agent_diagnosis' } }])
    const plain = await rejectionOf(expect(GAIA_SUBAGENT).toUseToolsEfficiently({ judge: h.judge }))
    expect(plain.message).toMatch(
      /Tool coverage: unjudgeable — the judge gave no valid verdict, so this fails\nCause: unjudgeable: .*not JSON/,
    )
    const negated = await rejectionOf(expect(GAIA_SUBAGENT).not.toUseToolsEfficiently({ judge: h.judge }))
    expect(negated.message).toContain('so this fails under .not too')
    expect(
      metaOf(task)
        .verdicts.filter((v) => v.metric === 'agent.tool_coverage')
        .map((v) => v.outcome),
    ).toEqual(['unjudgeable', 'unjudgeable'])
  })

  test('OTel SDK spans: repeated identical calls fail the deterministic check even without a judge', async () => {
    const run = repetitiveRun()
    const error = await rejectionOf(expect(run.exporter).toUseToolsEfficiently({ judge: false }))
    expect(error.message).toMatch(
      /^expect\(received\)\.toUseToolsEfficiently\(options\)\n\nTool abuse: fail \(0\.33, min 0\.80\)\nReason: deterministic check: 2 of 3 calls repeated an identical earlier call/,
    )
    expect(error.message).toMatch(/\nTool coverage: skipped — judged only, and \{ judge: false \} was given$/)
    await expect(otelRun().spans()).toUseToolsEfficiently({ judge: false })
    // With a judge that finds nothing wrong, the facts still cap tool abuse at 2/5.
    const judged = await rejectionOf(expect(run.spans()).toUseToolsEfficiently({ judge: h.judge }))
    expect(judged.message).toContain('Tool abuse: fail (2/5, min 3)')
  })
})

describe('toCompleteTask', () => {
  test('pass, with the goal in the prompt; fail with the completeness reason; .not', async ({ task }) => {
    const goal = 'Transcribe the professor’s recording and list the page numbers he assigns.'
    await expect(GAIA_SUBAGENT).toCompleteTask(goal, { judge: h.judge })
    expect(textOf(h.bodies[0])).toContain(goal)
    h.fake.setRules([
      agentRule('incomplete', {
        completeness: { score: 1, reason: 'the final answer 12,45,67 was guessed: the audio was never transcribed' },
      }),
    ])
    const error = await rejectionOf(expect(GAIA_SUBAGENT).toCompleteTask(goal, { judge: h.judge }))
    expect(error.message).toBe(
      [
        'expect(received).toCompleteTask(goal, options)',
        '',
        'Completeness: fail (1/5, min 3)',
        'Reason: the final answer 12,45,67 was guessed: the audio was never transcribed',
        'Judge: openai-compatible:fake-judge · agent-diagnosis@2',
      ].join('\n'),
    )
    await expect(GAIA_SUBAGENT).not.toCompleteTask(goal, { judge: h.judge })
    expect(metaOf(task).verdicts.map((v) => [v.metric, v.outcome])).toEqual([
      ['agent.completeness', 'pass'],
      ['agent.completeness', 'fail'],
      ['agent.completeness', 'fail'],
    ])
  })

  test('without a goal the root task is used; unjudgeable fails both ways; a bad goal is a usage error', async () => {
    await expect(SWE_RUN).toCompleteTask(undefined, { judge: h.judge })
    h.fake.setFaults([{ type: 'server-error', status: 503, when: { schemaName: 'agent_diagnosis' } }])
    expect((await rejectionOf(expect(SWE_RUN).toCompleteTask(undefined, { judge: h.judge }))).message).toMatch(
      /Completeness: unjudgeable — .*\nCause: /,
    )
    expect((await rejectionOf(expect(SWE_RUN).not.toCompleteTask(undefined, { judge: h.judge }))).message).toContain(
      'fails under .not too',
    )
    expect((await rejectionOf(expect(SWE_RUN).toCompleteTask('  ', { judge: h.judge }))).message).toContain(
      'goal must be a non-empty string',
    )
  })
})

describe('toFollowPlan', () => {
  test('pass, fail with plan efficiency, .not, unjudgeable', async () => {
    await expect(GAIA_SUBAGENT).toFollowPlan({ judge: h.judge })
    h.fake.setRules([
      agentRule('plan', {
        plan_efficiency: {
          score: 2,
          reason: 'the plan said to transcribe the audio; the run guessed the pages instead',
        },
      }),
    ])
    const error = await rejectionOf(expect(GAIA_SUBAGENT).toFollowPlan({ judge: h.judge }))
    expect(error.message).toMatch(
      /^expect\(received\)\.toFollowPlan\(options\)\n\nPlan efficiency: fail \(2\/5, min 3\)\nReason: (part \d\/\d: )?the plan said to transcribe the audio; the run guessed the pages instead\nJudge: /,
    )
    await expect(GAIA_SUBAGENT).not.toFollowPlan({ judge: h.judge })
    h.fake.setFaults([{ type: 'malformed-json', when: { schemaName: 'agent_diagnosis' } }])
    expect((await rejectionOf(expect(GAIA_SUBAGENT).not.toFollowPlan({ judge: h.judge }))).message).toContain(
      'Plan efficiency: unjudgeable',
    )
  })

  test('judge: false is rejected: plan efficiency has no deterministic check', async () => {
    const error = await rejectionOf(expect(GAIA_SUBAGENT).toFollowPlan({ judge: false }))
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toBe(
      'expect(received).toFollowPlan(options)\n\nplan efficiency is judged and has no deterministic check, so { judge: false } leaves nothing to check — pass { judge } or set AGENT_VERDICT_JUDGE',
    )
    expect(h.fake.calls).toHaveLength(0)
  })
})
