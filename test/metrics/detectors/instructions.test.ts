// Framework-neutral rules on real SDK traces (test/fixtures/xframework): a final answer that breaks the run's own
// instructions, and repeated tool calls whose results differ only in the framework's call id.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { GoldFileSchema } from '../../../bench/xframework/gold'
import { detect } from '../../../src/metrics/detectors/index'
import { detectIgnoredErrors } from '../../../src/metrics/detectors/error-ignored'
import { detectInstructionBreaches } from '../../../src/metrics/detectors/instructions'
import { detectRepeatedCalls } from '../../../src/metrics/detectors/repeated-calls'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'
import { agentSpan, at, createRecorder, record } from '../../helpers/otel'

const DIR = fileURLToPath(new URL('../../fixtures/xframework', import.meta.url))
const GOLD = GoldFileSchema.parse(JSON.parse(readFileSync(join(DIR, 'gold.json'), 'utf8'))).traces

function fixture(file: string): { trace: Trace; gold: Array<{ spanId: string; category: string }> } {
  const path = join(DIR, file)
  const entry = GOLD.find((g) => g.file === file)
  if (!entry) throw new Error(`no gold for ${file}`)
  return { trace: parseTrace(readFileSync(path, 'utf8'), path), gold: entry.gold }
}

const pairs = (fs: Array<{ spanId: string; category: string }>) => fs.map((f) => `${f.spanId} ${f.category}`)

describe.each(['openai-agents', 'langgraph'])('instruction breaches on %s traces', (sdk) => {
  it.each(['weather-answer-before-lookup', 'orders-wrong-tool', 'docs-invalid-answer-format'])(
    'names the gold span and category of %s',
    (scenario) => {
      const { trace, gold } = fixture(`${sdk}/${scenario}.json`)
      expect(pairs(detectInstructionBreaches(trace))).toEqual(pairs(gold))
    },
  )

  it('finds nothing on the clean runs', () => {
    for (const task of ['weather', 'orders', 'docs'])
      for (let i = 1; i <= 5; i++)
        expect(detectInstructionBreaches(fixture(`${sdk}/${task}-clean-${i}.json`).trace)).toEqual([])
  })

  it('names the answer written over a failed lookup, not one that says the lookup failed', () => {
    const ignored = fixture(`${sdk}/weather-tool-error-ignored.json`)
    const misread = ignored.gold.filter((g) => g.category === 'Tool Output Misinterpretation')
    expect(pairs(detectIgnoredErrors(ignored.trace))).toEqual(pairs(misread))
    // The auth-error runs answer "I could not look this up: access was denied." after the same kind of failure.
    expect(detectIgnoredErrors(fixture(`${sdk}/orders-auth-error.json`).trace)).toEqual([])
  })

  it('names the third identical lookup of a loop, whatever call id the framework wraps the result in', () => {
    const { trace, gold } = fixture(`${sdk}/orders-repeated-call-loop.json`)
    expect(pairs(detectRepeatedCalls(trace))).toEqual(pairs(gold))
  })
})

describe('instruction breaches on a hand-built GenAI trace', () => {
  function run(system: string, answer: string, offered = ['get_weather']): Trace {
    const rec = createRecorder({ seed: 9 })
    record(
      rec.tracer,
      agentSpan([
        {
          name: 'chat gpt-4.1-mini',
          start: at(100),
          end: at(200),
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4.1-mini',
            'gen_ai.tool.definitions': JSON.stringify(offered.map((name) => ({ type: 'function', name }))),
            'gen_ai.input.messages': JSON.stringify([
              { role: 'system', parts: [{ type: 'text', content: system }] },
              { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
            ]),
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: answer }] },
            ]),
          },
        },
      ]),
    )
    return parseTrace(rec.otlpJson(), 'run.json')
  }

  it('does not hold a run to a tool its instructions make optional', () => {
    expect(detectInstructionBreaches(run('If you need live data, use get_weather.', 'It is mild.'))).toEqual([])
    expect(detectInstructionBreaches(run('Use get_weather for any weather question.', 'It is mild.'))).toEqual([
      expect.objectContaining({ category: 'Goal Deviation', detector: 'instructions' }),
    ])
  })

  it('does not require a tool the model was not offered', () => {
    expect(detectInstructionBreaches(run('Use get_weather for any weather question.', 'It is mild.', []))).toEqual([])
  })

  it('accepts a fenced JSON answer and flags prose where JSON is required', () => {
    const system = 'Reply with one JSON object {"answer": "..."} and nothing else.'
    expect(detectInstructionBreaches(run(system, '```json\n{"answer": "12 °C"}\n```'))).toEqual([])
    const [prose] = detect(run(system, 'Sure! It is 12 °C.'))
    expect(prose).toMatchObject({
      category: 'Formatting Errors',
      detector: 'instructions',
      evidence: 'Sure! It is 12 °C.',
    })
  })
})

describe('final answers of code agents', () => {
  it('takes no text of a run that calls its tools through code for an answer', () => {
    const rec = createRecorder({ seed: 12 })
    const llm = (start: number, text: string) => ({
      name: 'chat gpt-4.1-mini',
      start: at(start),
      end: at(start + 50),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([
          { role: 'system', parts: [{ type: 'text', content: 'Use get_weather for any weather question.' }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]),
      },
    })
    record(
      rec.tracer,
      agentSpan([
        llm(100, 'Code:\nprint(get_weather("Paris"))'),
        {
          name: 'execute_tool get_weather',
          start: at(200),
          end: at(300),
          error: { type: 'TimeoutError', message: 'read timed out', time: at(290) },
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
        },
        llm(400, 'Thought: try again later.\nCode:\nprint(get_weather("Paris"))'),
      ]),
    )
    const trace = parseTrace(rec.otlpJson(), 'code-agent.json')
    expect(detectIgnoredErrors(trace)).toEqual([])
    expect(detectInstructionBreaches(trace)).toEqual([])
  })
})
