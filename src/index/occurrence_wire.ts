/**
 * A file's identifier occurrences packed for the trip from a parse worker to
 * the writer. A structured clone of one object per occurrence spells every
 * key of every object and rebuilds each on the other side; packed, the
 * numbers travel in one transferable Int32Array and the strings (names,
 * kinds, qualifiers, hints: they repeat a lot) once each. Unpacking gives
 * back the same objects, field for field.
 */
import type { ExtractedOccurrence, ReferenceKind } from "../core/types.ts";

/** Occurrences as columns: per occurrence `STRIDE` numbers in `cols`, strings by index into `strings`. */
export interface PackedOccurrences {
  strings: string[];
  cols: Int32Array;
}

/** Numbers per occurrence: name, kind, line, column, qualifier, from, hint (-1: null or absent). */
const STRIDE = 7;

/** Packs `occurrences` (see the module doc); `cols.buffer` may be transferred. */
export function packOccurrences(occurrences: readonly ExtractedOccurrence[]): PackedOccurrences {
  const index = new Map<string, number>();
  const strings: string[] = [];
  const id = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      index.set(s, i);
      strings.push(s);
    }
    return i;
  };
  const cols = new Int32Array(occurrences.length * STRIDE);
  let k = 0;
  for (const o of occurrences) {
    cols[k++] = id(o.name);
    cols[k++] = id(o.kind);
    cols[k++] = o.line;
    cols[k++] = o.column;
    cols[k++] = o.qualifier === null ? -1 : id(o.qualifier);
    cols[k++] = o.from ?? -1;
    cols[k++] = o.hint == null ? -1 : id(o.hint);
  }
  return { strings, cols };
}

/** The occurrences `packOccurrences` was given (a hint only where one was set). */
export function unpackOccurrences({ strings, cols }: PackedOccurrences): ExtractedOccurrence[] {
  const out = new Array<ExtractedOccurrence>(cols.length / STRIDE);
  for (let i = 0, k = 0; k < cols.length; i++, k += STRIDE) {
    const qualifier = cols[k + 4];
    const from = cols[k + 5];
    const hint = cols[k + 6];
    const o: ExtractedOccurrence = {
      name: strings[cols[k]],
      kind: strings[cols[k + 1]] as ReferenceKind,
      line: cols[k + 2],
      column: cols[k + 3],
      qualifier: qualifier < 0 ? null : strings[qualifier],
      from: from < 0 ? null : from,
    };
    if (hint >= 0) o.hint = strings[hint];
    out[i] = o;
  }
  return out;
}
