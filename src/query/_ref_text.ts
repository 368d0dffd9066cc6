/**
 * The text of a file at a ref, for comparing symbols: the lines the ref's
 * store holds, or (when the store lacks some of them) the file as the ref's
 * `readFile` gives it. Bodies are cut from these lines by symbol line range.
 */
import type { RefView } from "../state/ref_view.ts";
import type { FileDigest } from "../state/read/files.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { storedLines } from "./_file_lines.ts";
import { symbolsInFile } from "../state/read/symbols.ts";
import type { SideSymbol } from "./_symbol_match.ts";

/** A file's lines at one ref, and whether they are its whole text. */
export interface RefFileText {
  lines: string[];
  complete: boolean;
}

/** The lines of `file` at `view` (see the module comment); never throws for a missing or unreadable file. */
async function refFileText(view: RefView, file: FileDigest): Promise<RefFileText> {
  const stored = storedLines(view.db, file.path, 1, file.line_count);
  if (stored.complete || !view.readFile) return stored;
  try {
    const bytes = await view.readFile(file.path);
    if (bytes) return { lines: new TextDecoder().decode(bytes).split("\n"), complete: true };
  } catch { /* unreadable now: compare what the store holds */ }
  return stored;
}

/** A symbol with its body lines cut from its file's text. */
export function withBody(row: SymbolRow, text: RefFileText): SideSymbol {
  return { row, body: text.lines.slice(row.line_start - 1, row.line_end) };
}

/** File texts of one side, each read once (also when asked for at once), and the symbols of a file with their bodies. */
export class TextCache {
  private texts = new Map<string, Promise<RefFileText>>();
  private done = new Map<string, RefFileText>();

  constructor(readonly view: RefView) {}

  /** The text of `f` at this side. */
  text(f: FileDigest): Promise<RefFileText> {
    let t = this.texts.get(f.path);
    if (!t) {
      this.texts.set(f.path, t = refFileText(this.view, f));
      t.then((x) => this.done.set(f.path, x));
    }
    return t;
  }

  /** Every symbol of `f` at this side, with its body. */
  async symbols(f: FileDigest): Promise<SideSymbol[]> {
    const text = await this.text(f);
    return symbolsInFile(this.view.db, f.path, false, 1_000_000).map((r) => withBody(r, text));
  }

  /** Paths read whose text was not complete. */
  incomplete(): string[] {
    return [...this.done].filter(([, t]) => !t.complete).map(([p]) => p);
  }
}
