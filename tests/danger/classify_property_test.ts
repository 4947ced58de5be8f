import assert from "node:assert/strict";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { CONTEXT } from "./_table.ts";
import { type Base, BASES, SPELLINGS, type Wrapping, WRAPPINGS } from "./_wrappings.ts";

const classifier = await createClassifier();

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The commands that drop the base's class, with how they were built. */
function drops(cases: { base: Base; command: string; how: string }[]): string[] {
  const out: string[] = [];
  for (const { base, command, how } of cases) {
    const parts = classifier.classifyCommand(command, CONTEXT);
    if (!parts.some((p) => p.riskClass === base.riskClass)) {
      const got = parts.map((p) => p.riskClass).join(",");
      out.push(`${base.riskClass} dropped by ${how}: ${JSON.stringify(command)} -> [${got}]`);
    }
  }
  return out;
}

function apply(s: string, wrapping: Wrapping): string {
  return wrapping(s) ?? s;
}

Deno.test("classifyCommand() keeps every base command's class under every single wrapping", () => {
  const cases = BASES.flatMap((base) =>
    Object.entries(WRAPPINGS).map(([how, wrap]) => ({
      base,
      command: apply(base.command, wrap),
      how,
    }))
  );
  assert.ok(cases.length >= 1000, `only ${cases.length} cases`);
  assert.deepEqual(drops(cases).slice(0, 20), []);
});

Deno.test("classifyCommand() keeps every base command's class under every respelling", () => {
  const cases = BASES.flatMap((base) =>
    Object.entries(SPELLINGS).map(([how, spell]) => ({
      base,
      command: spell(base.words) ?? base.command,
      how,
    }))
  );
  assert.deepEqual(drops(cases).slice(0, 20), []);
});

Deno.test("classifyCommand() keeps the class under random nestings of spellings and wrappings", () => {
  const next = random(20_240_601);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const wrappings = Object.entries(WRAPPINGS);
  const spellings = Object.entries(SPELLINGS);
  const cases = Array.from({ length: 3000 }, () => {
    const base = pick(BASES);
    const [spellName, spell] = pick(spellings);
    let command = next() < 0.5 ? (spell(base.words) ?? base.command) : base.command;
    const how = [command === base.command ? "plain" : spellName];
    const depth = 1 + Math.floor(next() * 3);
    for (let i = 0; i < depth; i++) {
      const [name, wrap] = pick(wrappings);
      command = apply(command, wrap);
      how.push(name);
    }
    return { base, command, how: how.join(" > ") };
  });
  assert.deepEqual(drops(cases).slice(0, 20), []);
});

Deno.test("classifyCommand() property cases would catch a dropped class", () => {
  // The check itself can fail: a wrapping that hides the command in a comment drops it.
  const hidden = drops([{ base: BASES[0], command: `# ${BASES[0].command}`, how: "comment" }]);
  assert.equal(hidden.length, 1);
});
