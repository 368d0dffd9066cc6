/**
 * Recognizes generated source files: known generator suffixes (`.pb.go`,
 * `_pb2.py`, ...) and the markers generators write near the top of a file
 * (`Code generated ... DO NOT EDIT.`, `@generated`). Generated files are
 * indexed like any other (their symbols are found) but carry a `generated`
 * flag, and free-text search ranks them below hand-written code; they and
 * minified files give no identifier occurrences.
 * Needs no Deno permission: it reads only the text it is given.
 */

/** File name endings that generators use. */
const GENERATED_SUFFIX =
  /(\.pb\.go|\.pb\.gw\.go|_pb2\.pyi?|_pb2_grpc\.py|\.pb\.(cc|h)|\.pb\.(js|ts)|_pb\.(js|d\.ts)|_grpc_pb\.(js|d\.ts)|\.g\.dart|\.freezed\.dart|\.designer\.cs|\.g\.cs|_generated\.go|zz_generated[^/]*\.go|\.generated\.[a-z]+)$/i;

/** The head of a file searched for a marker: generators put it in the first comment block. */
const HEAD_CHARS = 4096;
/**
 * Go's convention (a whole line) and the cross-language `@generated` tag opening a comment line (a comment that
 * only mentions the tag, as in "a `@generated` marker", is no marker).
 */
const GENERATED_MARKER = /^\s*(\/\/|#|\/\*+|\*|--)\s*(Code generated .* DO NOT EDIT\.?\s*(\*\/)?\s*$|@generated\b)/m;

/** True when `path` or the beginning of its `source` says a generator wrote it. */
export function isGeneratedFile(path: string, source: string): boolean {
  if (GENERATED_SUFFIX.test(path)) return true;
  return GENERATED_MARKER.test(source.slice(0, HEAD_CHARS));
}

/** A minified file is at least this long... */
const MINIFIED_MIN_CHARS = 2048;
/** ...and its lines are this long on average: hand-written code stays far below. */
const MINIFIED_MEAN_LINE = 400;

/** True when `source` reads as minified: a long text on few, very long lines. */
export function isMinifiedSource(source: string): boolean {
  if (source.length < MINIFIED_MIN_CHARS) return false;
  let lines = 1;
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) lines++;
  return source.length / lines >= MINIFIED_MEAN_LINE;
}
