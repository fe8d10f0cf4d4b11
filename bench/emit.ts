/**
 * How a bench module reports one figure: `key value [detail]`, printed as one line by `bench/run.ts`.
 *
 * @example
 * export async function run(emit: Emit) {
 *   emit('ingest.ratio_vs_json_parse', 1.21, 'p90=1.4 traces=90')
 * }
 */
export type Emit = (key: string, value: number | string, detail?: string) => void

/** A bench module: `bench/<name>.ts` exporting `run`. Register it in the list in `bench/run.ts`. */
export interface BenchModule {
  run(emit: Emit): Promise<void>
}
