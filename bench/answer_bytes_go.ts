/**
 * The default answers `deno task bench:answers` measures on the Go tree:
 * fixed calls per query tool (well-known files, names and questions of the
 * Go standard library), and the table of each tool's p50 and max bytes
 * against the 8 KB an answer should stay under.
 */

/** What a default answer should stay under, in bytes. */
export const ANSWER_BYTES_GOAL = 8 * 1024;

/** Files whose outlines are measured (the largest hand-written and generated files among them). */
const FILES = [
  "net/http/server.go",
  "net/http/request.go",
  "runtime/proc.go",
  "runtime/mheap.go",
  "cmd/compile/internal/ssa/rewriteAMD64.go",
  "go/ast/ast.go",
  "reflect/value.go",
  "fmt/print.go",
  "strings/strings.go",
  "sort/sort.go",
  "os/file.go",
  "time/time.go",
  "encoding/json/encode.go",
  "bufio/bufio.go",
  "errors/errors.go",
  "context/context.go",
];

/** Symbols (name with its file) for the tools that take one. */
const SYMBOLS: [string, string][] = [
  ["Server.Serve", "net/http/server.go"],
  ["http.ListenAndServe", "net/http/server.go"],
  ["NewRequest", "net/http/request.go"],
  ["Reader.Read", "bufio/bufio.go"],
  ["Marshal", "encoding/json/encode.go"],
  ["Fprintf", "fmt/print.go"],
  ["WithCancel", "context/context.go"],
  ["Value.Interface", "reflect/value.go"],
];

/** Questions for search_code and get_code_context. */
const QUERIES = [
  "http server graceful shutdown",
  "parse duration string",
  "json encoder escape html",
  "goroutine scheduler run queue",
  "read until delimiter buffered reader",
  "context deadline exceeded",
];

/** Names for locate_symbol. */
const NAMES = ["ServeHTTP", "Handler", "NewReader", "Marshal", "Duration", "Mutex", "Sprintf", "schedule"];

/** The Go-tree calls: each tool with its arguments, defaults otherwise. */
export const GO_CALLS: [string, Record<string, unknown>][] = [
  ...FILES.map((path): [string, Record<string, unknown>] => ["get_file_outline", { path }]),
  ["get_file_outline", { path: "net/http/server.go", depth: "top" }],
  ...QUERIES.map((query): [string, Record<string, unknown>] => ["search_code", { query }]),
  ...QUERIES.map((query): [string, Record<string, unknown>] => ["get_code_context", { query }]),
  ...NAMES.map((name): [string, Record<string, unknown>] => ["locate_symbol", { name }]),
  ...["get_symbol_hierarchy", "find_related_symbols", "find_references", "get_call_graph"].flatMap((tool) =>
    SYMBOLS.map(([symbol_name, path]): [string, Record<string, unknown>] => [tool, { symbol_name, path }])
  ),
];

/** One measured answer: its tool, arguments, bytes, and whether it was an error. */
export interface GoRow {
  tool: string;
  args: string;
  bytes: number;
  error: boolean;
}

/** The `q` quantile of `xs` (nearest rank). */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** Per tool: calls, p50 and max bytes, and how many answers are over the goal; then the tools still over it. */
export function printGoTable(rows: GoRow[]): void {
  console.log(`\nGo tree, default answers  calls     p50     max  over ${ANSWER_BYTES_GOAL}  largest`);
  const over: string[] = [];
  for (const tool of [...new Set(rows.map((r) => r.tool))]) {
    const rs = rows.filter((r) => r.tool === tool);
    const bytes = rs.map((r) => r.bytes);
    const max = Math.max(...bytes);
    const n = bytes.filter((b) => b > ANSWER_BYTES_GOAL).length;
    const errors = rs.filter((r) => r.error).length;
    const largest = rs.find((r) => r.bytes === max)!.args;
    console.log(
      `${tool.padEnd(25)} ${String(rs.length).padStart(5)} ${String(quantile(bytes, 0.5)).padStart(7)} ${
        String(max).padStart(7)
      } ${String(n).padStart(9)}  ${largest}${errors ? `  (${errors} error answers)` : ""}`,
    );
    if (n) over.push(tool);
  }
  console.log(
    over.length ? `over ${ANSWER_BYTES_GOAL} bytes: ${over.join(", ")}` : `every answer ≤ ${ANSWER_BYTES_GOAL} bytes`,
  );
}
