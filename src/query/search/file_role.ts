/**
 * A file's role from its path and what it defines, the same rule for every
 * language: `definition` (hand-written code that defines something), or a
 * supporting role (`script`, `fixture`, `generated`, `no_definitions`) whose
 * results a prose question rarely means. Tests, examples, vendored code and
 * documents keep their own penalties (`signals.ts`). Pure, no I/O.
 */

/** The roles a path can have. */
export type FileRole = "definition" | "script" | "fixture" | "generated" | "no_definitions";

const SCRIPT = /(^|\/)(scripts?|tools?|bench|benchmarks?|build|ci|hack|misc|contrib)\//i;
const FIXTURE = /(^|\/)(fixtures?|mocks?|fakes?|stubs?|testdata|test_?data)\//i;
const GENERATED_NAME = /(\.pb|_pb2|\.g|\.gen|_gen|_generated|\.generated|\.designer|_string)\.[a-z]+$/i;

/** Words a query uses when it asks for a supporting role itself. */
const ROLE_WORDS: Record<Exclude<FileRole, "definition" | "no_definitions">, RegExp> = {
  script: /^(scripts?|tools?|bench|benchmarks?|build|ci)$/,
  fixture: /^(fixtures?|mocks?|fakes?|stubs?)$/,
  generated: /^(generated?|generator|codegen|protobuf|proto)$/,
};

/**
 * The role of `path`: a supporting role from the path (scripts and tools,
 * fixtures and mocks, generated-looking names), else `no_definitions` when
 * `symbols` (the file's symbol count, when known) is 0, else `definition`.
 */
export function fileRole(path: string, symbols?: number): FileRole {
  if (FIXTURE.test(path)) return "fixture";
  if (GENERATED_NAME.test(path)) return "generated";
  if (SCRIPT.test(path)) return "script";
  return symbols === 0 ? "no_definitions" : "definition";
}

/** Whether the query's words name the role (then it is not lowered). */
export function queryNamesRole(role: FileRole, words: readonly string[]): boolean {
  if (role === "definition" || role === "no_definitions") return false;
  return words.some((w) => ROLE_WORDS[role].test(w));
}
