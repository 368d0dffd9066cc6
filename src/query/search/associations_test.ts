import assert from "node:assert/strict";
import { associationsOf, splitPassage } from "./associations.ts";
import type { TermStats } from "./term_stats.ts";

const stats = (df: Record<string, number>, docs = 1000): TermStats => ({
  docs,
  df: (t) => df[t] ?? 0,
  dfPrefix: (p) => df[p] ?? 0,
});

Deno.test("splitPassage: comment words apart from the identifier parts of code", () => {
  const { comment, code } = splitPassage("# check auth first\n@login_required\ndef view(request): pass");
  assert.ok(comment.has("auth") && comment.has("check"));
  assert.ok(code.has("login") && code.has("required") && code.has("request"));
  assert.ok(!code.has("auth"), "a comment word is not code");
});

Deno.test("associationsOf: the identifier parts passages commenting on a word share, rare ones first", () => {
  const p = (c: string) => ({ content: c });
  const passages = [
    p("# auth gate\n@login_required\ndef a(request): ..."),
    p("// auth check\nif login_required(user) { return request }"),
    p("# auth: session\nlogin_required(session, request)"),
    p("def unrelated(request): login()"), // no comment on `auth`: not counted
  ];
  const got = associationsOf(
    "auth",
    passages,
    stats({ login: 10, required: 15, request: 2500, session: 40 }),
    new Set(["auth"]),
  );
  assert.deepEqual(got.slice(0, 2), ["login", "required"]);
  assert.ok(got.indexOf("request") === -1 || got.indexOf("request") > 1, "a part found nearly everywhere ranks last");
  assert.ok(!got.includes("session"), "a part in fewer than 3 commenting passages is left out");
});
