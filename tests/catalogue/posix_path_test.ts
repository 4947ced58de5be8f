import assert from "node:assert/strict";
import { posix } from "node:path";
import * as ours from "../../tools/_posix_path.ts";

/** Segments that exercise every branch of the folding: dots, empties, odd names. */
const PARTS = [
  "",
  ".",
  "..",
  "...",
  "a",
  "b.c",
  "..a",
  "a..",
  ".a",
  "x y",
  "a\\b",
  "é",
  "~",
];

/** A deterministic generator (xorshift), so a failure names a reproducible case. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function paths(count: number, seed: number): string[] {
  const random = generator(seed);
  const out = [
    "",
    "/",
    "//",
    "///",
    ".",
    "..",
    "./",
    "../",
    "/..",
    "/../a",
    "a/",
    "a//",
    "//a",
  ];
  for (let i = 0; i < count; i++) {
    const n = Math.floor(random() * 6);
    const segments = Array.from(
      { length: n },
      () => PARTS[Math.floor(random() * PARTS.length)],
    );
    let path = segments.join(random() < 0.2 ? "//" : "/");
    if (random() < 0.5) path = `/${path}`;
    if (random() < 0.2) path = `${path}/`;
    out.push(path);
  }
  return out;
}

Deno.test("the file tools' POSIX path functions agree with node:path's POSIX ones", () => {
  const cases = paths(3000, 0x2f2f);
  for (const p of cases) {
    assert.equal(
      ours.normalize(p),
      posix.normalize(p),
      `normalize(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.isAbsolute(p),
      posix.isAbsolute(p),
      `isAbsolute(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.dirname(p),
      posix.dirname(p),
      `dirname(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.basename(p),
      posix.basename(p),
      `basename(${JSON.stringify(p)})`,
    );
  }
  for (let i = 0; i + 2 < cases.length; i += 3) {
    const [a, b, c] = cases.slice(i, i + 3);
    assert.equal(
      ours.join(a, b, c),
      posix.join(a, b, c),
      `join(${JSON.stringify([a, b, c])})`,
    );
    assert.equal(
      ours.resolve(a, b, c),
      posix.resolve(a, b, c),
      `resolve(${[a, b, c]})`,
    );
    assert.equal(
      ours.resolve(`/${a}`, b),
      posix.resolve(`/${a}`, b),
      `resolve(/${a}, ${b})`,
    );
    assert.equal(
      ours.relative(a, b),
      posix.relative(a, b),
      `relative(${JSON.stringify([a, b])})`,
    );
    const [x, y] = [`/w/${a}`, `/w/${b}`];
    assert.equal(
      ours.relative(x, y),
      posix.relative(x, y),
      `relative(${x}, ${y})`,
    );
  }
  assert.equal(ours.join(), posix.join());
  assert.equal(ours.resolve(), posix.resolve());
  assert.equal(ours.sep, posix.sep);
});

Deno.test("a backslash stays part of a POSIX file name (unlike pathe's normalising)", () => {
  assert.equal(ours.join("/w", "a\\b"), "/w/a\\b");
  assert.equal(ours.relative("/w", "/w/a\\..\\b"), "a\\..\\b");
});
