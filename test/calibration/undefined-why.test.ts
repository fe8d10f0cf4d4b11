// Why κ is undefined names the rater that never varied (issue 35): the judge, the human labels, both, or nothing judged.
import { describe, expect, it } from 'vitest'
import type { MetricCalibration } from '../../src/calibration/calibrate'
import { undefinedWhy } from '../../src/calibration/render'

/** A calibration with only what undefinedWhy reads: rows are human labels, columns the judge's scores. */
const calibration = (matrix: number[][], unjudgeable = 0) =>
  ({
    n: matrix.flat().reduce((a, b) => a + b, 0),
    unjudgeable: Array.from({ length: unjudgeable }, () => ({})),
    confusion: { categories: ['0', '1'], matrix },
  }) as unknown as MetricCalibration

describe('undefinedWhy', () => {
  it('names the judge when only its scores never varied', () => {
    expect(
      undefinedWhy(
        calibration([
          [0, 3],
          [0, 2],
        ]),
      ),
    ).toBe('undefined: the judge never varied (it gave 1 to every case)')
  })
  it('names the human labels when only they never varied', () => {
    expect(
      undefinedWhy(
        calibration([
          [2, 3],
          [0, 0],
        ]),
      ),
    ).toBe('undefined: the human labels never varied (every case is labelled 0)')
  })
  it('says nothing was judged, with the unjudgeable count, rather than blaming a rater', () => {
    expect(
      undefinedWhy(
        calibration(
          [
            [0, 0],
            [0, 0],
          ],
          4,
        ),
      ),
    ).toBe('undefined: no case was judged (4 unjudgeable, reasons below)')
  })
  it('control: raters that both varied give no rater to blame', () => {
    expect(
      undefinedWhy(
        calibration([
          [2, 1],
          [1, 2],
        ]),
      ),
    ).toBe('undefined')
  })
})
