import assert from "node:assert/strict";
import { feedbackTerms } from "./prf.ts";
import type { TermStats } from "./term_stats.ts";

const stats = (df: Record<string, number>, docs = 1000): TermStats => ({
  docs,
  df: (t) => df[t] ?? 0,
  dfPrefix: (p) => df[p] ?? 0,
});

Deno.test("feedbackTerms: words the top passages share and the repository rarely has, never the query's own", () => {
  const top = [
    { content: "def login_required(view): check session token", r: -9 },
    { content: "session = verify_token(request)  # login", r: -7 },
    { content: "token expiry for the session cookie", r: -5 },
  ];
  const terms = feedbackTerms(
    "how does auth login work",
    top,
    stats({ session: 20, token: 30, required: 400, cookie: 5 }),
  );
  assert.ok(terms.includes("session") && terms.includes("token"), terms.join(","));
  assert.ok(!terms.includes("login"), "a query word is not an expansion");
  assert.ok(terms.indexOf("session") < terms.indexOf("required") || !terms.includes("required"));
});

Deno.test("feedbackTerms: words found nearly everywhere, or only in the top passages, are left out", () => {
  const top = [{ content: "alpha beta uniqueword", r: -3 }, { content: "alpha beta", r: -2 }];
  const terms = feedbackTerms("query", top, stats({ alpha: 9000, beta: 10, uniqueword: 1 }, 100_000));
  assert.deepEqual(terms, ["beta"]);
});

Deno.test("feedbackTerms: one passage is no feedback", () => {
  assert.deepEqual(feedbackTerms("q", [{ content: "session token", r: -1 }], stats({ session: 5, token: 5 })), []);
});
