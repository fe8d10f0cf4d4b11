import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { agreement, cohenKappa, confusionMatrix, quadraticWeightedKappa } from '../../src/stats/agreement'

// Expand a 2×2 table [[yes/yes, yes/no], [no/yes, no/no]] into paired labels.
function pairs(a: number, b: number, c: number, d: number): [string[], string[]] {
  const x: string[] = []
  const y: string[] = []
  const add = (n: number, l: string, p: string) => {
    for (let i = 0; i < n; i++) x.push(l), y.push(p)
  }
  add(a, 'yes', 'yes')
  add(b, 'yes', 'no')
  add(c, 'no', 'yes')
  add(d, 'no', 'no')
  return [x, y]
}

describe('confusion matrix and agreement', () => {
  it('counts pairs with a fixed category order', () => {
    const cm = confusionMatrix([1, 2, 2, 3], [1, 2, 3, 3], [1, 2, 3, 4])
    expect(cm.matrix).toEqual([
      [1, 0, 0, 0],
      [0, 1, 1, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 0],
    ])
    expect(agreement(cm)).toBe(0.75)
  })
  it('names values outside the categories and mismatched lengths', () => {
    expect(() => confusionMatrix([1, 6], [1, 1], [1, 2, 3, 4, 5])).toThrow(
      /value 6 is not one of the categories 1, 2, 3, 4, 5/,
    )
    expect(() => confusionMatrix([1], [1, 2])).toThrow(/1 labels but 2 predictions/)
  })
})

describe("Cohen's κ", () => {
  // The three worked 2×2 examples of Cohen's kappa on Wikipedia (po 0.7 / pe 0.5; 0.60 / 0.54; 0.60 / 0.46).
  it.each([
    [20, 5, 10, 15, 0.4],
    [45, 15, 25, 15, 0.1304],
    [25, 35, 5, 35, 0.2593],
  ])('table [[%i, %i], [%i, %i]] has κ %f', (a, b, c, d, kappa) => {
    const [x, y] = pairs(a, b, c, d)
    expect(cohenKappa(confusionMatrix(x, y))).toBeCloseTo(kappa, 4)
  })
  it('is 1 for perfect agreement and NaN when both raters never vary', () => {
    expect(cohenKappa(confusionMatrix([true, false, true], [true, false, true]))).toBe(1)
    expect(cohenKappa(confusionMatrix([true, true], [true, true]))).toBeNaN()
  })
})

describe('quadratic-weighted κ', () => {
  // Independent closed form for integer scores: QWK = 2·cov(x, y) / (var x + var y + (x̄ − ȳ)²) with
  // population moments (Cohen 1968 / Fleiss & Cohen 1973), valid when the categories are the
  // consecutive integers the scores range over.
  function viaMoments(x: number[], y: number[]): number {
    const n = x.length
    const mx = x.reduce((a, b) => a + b, 0) / n
    const my = y.reduce((a, b) => a + b, 0) / n
    let cov = 0
    let vx = 0
    let vy = 0
    for (let i = 0; i < n; i++) {
      cov += (x[i] - mx) * (y[i] - my)
      vx += (x[i] - mx) ** 2
      vy += (y[i] - my) ** 2
    }
    return (2 * (cov / n)) / (vx / n + vy / n + (mx - my) ** 2)
  }

  it('equals the moment form on a hand example', () => {
    const human = [5, 4, 3, 2, 1, 5, 4]
    const judge = [4, 4, 3, 1, 2, 5, 5]
    expect(quadraticWeightedKappa(confusionMatrix(human, judge, [1, 2, 3, 4, 5]))).toBeCloseTo(
      viaMoments(human, judge),
      12,
    )
  })

  it('equals the moment form for any 1–5 ratings', () => {
    const score = fc.integer({ min: 1, max: 5 })
    fc.assert(
      fc.property(fc.array(fc.tuple(score, score), { minLength: 2, maxLength: 60 }), (rows) => {
        const x = rows.map((r) => r[0])
        const y = rows.map((r) => r[1])
        const expected = viaMoments(x, y)
        fc.pre(Number.isFinite(expected))
        expect(quadraticWeightedKappa(confusionMatrix(x, y, [1, 2, 3, 4, 5]))).toBeCloseTo(expected, 9)
      }),
    )
  })

  it('penalises a far miss more than a near one', () => {
    const human = [1, 2, 3, 4, 5]
    const near = quadraticWeightedKappa(confusionMatrix(human, [1, 2, 3, 5, 5], [1, 2, 3, 4, 5]))
    const far = quadraticWeightedKappa(confusionMatrix(human, [1, 2, 3, 1, 5], [1, 2, 3, 4, 5]))
    expect(near).toBeGreaterThan(far)
  })
})
