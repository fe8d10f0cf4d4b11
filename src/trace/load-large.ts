// Trace files larger than a JavaScript string can hold: JSONL exports are read line by line.
import { constants } from 'node:buffer'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { fileReadError, notRegularFileError, TraceFormatError } from './errors'
import { JsonlTraceReader } from './parse'
import type { Trace } from './trace'

/** The longest string V8 can make (536,870,888 characters in Node 20): a file above it cannot be read whole. */
export const MAX_TEXT_BYTES = constants.MAX_STRING_LENGTH

const NEWLINE = 0x0a

function tooLarge(path: string, line: number, maxLineBytes: number): TraceFormatError {
  const where = line === 1 ? 'the file is one JSON document' : `line ${line} is one JSON document`
  return new TraceFormatError(
    `${where} larger than ${maxLineBytes.toLocaleString('en-US')} bytes, more than a JavaScript string can hold; export OTLP JSONL (one request per line, as the OTel collector's file exporter writes) or split the export into smaller files`,
    { file: path, line },
  )
}

function notJsonl(path: string, line: number, cause: TraceFormatError): TraceFormatError {
  return new TraceFormatError(
    `the file is larger than a JavaScript string can hold (${MAX_TEXT_BYTES.toLocaleString('en-US')} characters), so it can only be read as JSONL, one JSON document per line, and line ${line} is not one (${cause.problem.split('; ')[0]}); export OTLP JSONL (as the OTel collector's file exporter writes) or split the export into smaller files`,
    { file: path, line, cause },
  )
}

/**
 * Every trace in a JSONL file read line by line, so the file never has to fit in one string (the
 * collector's file exporter appends to one file without limit unless rotation is set). Blank lines are
 * skipped; a line longer than `maxLineBytes` fails with a TraceFormatError that says what to do.
 *
 * @example
 * const traces = await loadJsonlFile('otel-export.jsonl')
 */
export async function loadJsonlFile(path: string, opts: { maxLineBytes?: number } = {}): Promise<Trace[]> {
  const maxLineBytes = opts.maxLineBytes ?? MAX_TEXT_BYTES
  // stat does not open the path: a FIFO or device is refused before any read (stream them to a file first).
  const info = await stat(path).catch((err: unknown) => {
    throw fileReadError(path, err)
  })
  const refused = notRegularFileError(path, info)
  if (refused) throw refused
  const reader = new JsonlTraceReader(path)
  let pending: Buffer[] = []
  let pendingBytes = 0
  let line = 1
  let read = 0
  const take = (bytes: Buffer): void => {
    let text = bytes.toString('utf8')
    // A BOM is legal at the start of a UTF-8 file, and exporters on Windows end lines with \r\n.
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    const body = text.trim()
    if (body !== '') {
      try {
        reader.add(line, body)
      } catch (err) {
        // A first line that is no document on its own: a pretty-printed single document, too big to read whole.
        if (read === 0 && err instanceof TraceFormatError && /not valid JSON/.test(err.problem))
          throw notJsonl(path, line, err)
        throw err
      }
      read++
    }
    line++
  }
  try {
    for await (const chunk of createReadStream(path)) {
      const buf = chunk as Buffer
      let start = 0
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        if (pendingBytes + nl - start > maxLineBytes) throw tooLarge(path, line, maxLineBytes)
        take(pending.length === 0 ? buf.subarray(start, nl) : Buffer.concat([...pending, buf.subarray(start, nl)]))
        pending = []
        pendingBytes = 0
        start = nl + 1
      }
      if (start < buf.length) {
        pending.push(buf.subarray(start))
        pendingBytes += buf.length - start
        if (pendingBytes > maxLineBytes) throw tooLarge(path, line, maxLineBytes)
      }
    }
  } catch (err) {
    throw err instanceof TraceFormatError ? err : fileReadError(path, err)
  }
  if (pendingBytes > 0) take(Buffer.concat(pending))
  return reader.traces()
}
