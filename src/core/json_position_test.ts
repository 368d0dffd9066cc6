import assert from "node:assert/strict";
import { jsonErrorOffset, positionOf } from "./json_position.ts";

/** JSON.parse's own verdict, and the offset it names when it names one. */
function oracle(s: string): { valid: boolean; offset: number | null } {
  try {
    JSON.parse(s);
    return { valid: true, offset: null };
  } catch (e) {
    const m = (e as Error).message.match(/at position (\d+)/);
    return {
      valid: false,
      offset: m ? Number(m[1]) : /end of JSON input/.test((e as Error).message) ? s.length : null,
    };
  }
}

/** A small deterministic generator (the test must not depend on luck). */
function* texts(count: number): Generator<string> {
  let seed = 42;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const parts = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"a"',
    '"b\\n"',
    '"\\u00e9"',
    '"\\q"',
    '"\u0001"',
    '"',
    "1",
    "-0.5e+3",
    "01",
    "1.",
    "true",
    "tru",
    "null",
    "nul",
    "false",
    " ",
    "\n",
    "\t",
    "x",
    "\\",
    "-",
    "e5",
  ];
  const valid = ['{"a":[1,true,null,{"b":"c"}]}', "[]", "{}", '"x"', "0", '[{"k":{"k":[-1.5e3]}}]'];
  for (let n = 0; n < count; n++) {
    if (n % 3 === 0) {
      // A valid text with one part inserted, replaced or cut.
      const v = valid[rnd(valid.length)];
      const at = rnd(v.length + 1);
      const cut = rnd(3);
      yield v.slice(0, at) + (cut === 2 ? "" : parts[rnd(parts.length)]) + v.slice(at + (cut === 1 ? 1 : 0));
    } else {
      let t = "";
      for (let k = rnd(8) + 1; k > 0; k--) t += parts[rnd(parts.length)];
      yield t;
    }
  }
}

Deno.test("jsonErrorOffset agrees with JSON.parse on validity, and on the offset wherever JSON.parse names one", () => {
  let invalid = 0;
  let compared = 0;
  for (const s of texts(20_000)) {
    const o = oracle(s);
    const ours = jsonErrorOffset(s);
    assert.equal(ours === -1, o.valid, `validity of ${JSON.stringify(s)}`);
    if (!o.valid) invalid++;
    if (o.offset !== null) {
      compared++;
      assert.equal(ours, o.offset, `offset in ${JSON.stringify(s)}`);
    }
  }
  assert.ok(invalid > 5000 && compared > 2000, `${invalid} invalid, ${compared} offsets compared`);
});

Deno.test("jsonErrorOffset points at the bad token where JSON.parse only quotes it; any depth is fine", () => {
  assert.equal(jsonErrorOffset("root:x:0:0:root"), 0);
  assert.equal(jsonErrorOffset('{"a": tru}'), 9);
  assert.equal(jsonErrorOffset('{"a": [1,]}'), 9);
  assert.equal(jsonErrorOffset("[".repeat(100_000) + "]".repeat(100_000)), -1);
  assert.equal(jsonErrorOffset("[".repeat(100_000)), 100_000);
  assert.deepEqual(positionOf('{\n  "a": 1,\n  "b": zz}', jsonErrorOffset('{\n  "a": 1,\n  "b": zz}')), {
    line: 3,
    column: 8,
  });
  assert.deepEqual(positionOf("x", 0), { line: 1, column: 1 });
});
