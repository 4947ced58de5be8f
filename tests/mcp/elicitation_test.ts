import assert from "node:assert/strict";
import { NoOperatorClarifier } from "../../src/approval/clarifier.ts";
import type { ElicitationRequest } from "../../src/approval/elicitation.ts";
import { TerminalClarifier } from "../../src/approval/terminal_clarifier.ts";
import { toElicitationRequest, toElicitResult } from "../../src/mcp/elicitation_request.ts";

/** The kinds of field MCP forms have (the shapes server-everything sends). */
const FORM = {
  message: "Please \u001b[2Jfill in",
  requestedSchema: {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string", title: "Name", minLength: 2 },
      agree: { type: "boolean", default: false },
      count: { type: "integer", minimum: 1, maximum: 9, default: 3 },
      color: { type: "string", enum: ["red", "green"], default: "red" },
      hero: {
        type: "string",
        oneOf: [{ const: "h1", title: "Superman" }, { const: "h2", title: "Batman" }],
      },
      pet: { type: "string", enum: ["p1", "p2"], enumNames: ["Cats", "Dogs"] },
      tools: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, default: ["a"] },
      fish: { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }] } },
      email: { type: "string", format: "email" },
    },
  },
};

Deno.test("toElicitationRequest() reads every MCP field kind with its default and choices", () => {
  const request = toElicitationRequest(FORM, 'MCP server "demo"');
  assert.equal(request.mode, "form");
  if (request.mode !== "form") return;
  const kinds = Object.fromEntries(request.fields.map((f) => [f.name, f.type]));
  assert.deepEqual(kinds, {
    name: "string",
    agree: "boolean",
    count: "integer",
    color: "enum",
    hero: "enum",
    pet: "enum",
    tools: "multi_enum",
    fish: "multi_enum",
    email: "string",
  });
  const hero = request.fields.find((f) => f.name === "hero")!;
  assert.deepEqual("options" in hero ? hero.options : [], [
    { value: "h1", label: "Superman" },
    { value: "h2", label: "Batman" },
  ]);
  const pet = request.fields.find((f) => f.name === "pet")!;
  assert.deepEqual("options" in pet ? pet.options.map((o) => o.label) : [], ["Cats", "Dogs"]);
  assert.equal(request.fields.find((f) => f.name === "name")!.required, true);
  assert.throws(
    () => toElicitationRequest({ requestedSchema: { properties: { x: { type: "object" } } } }, "s"),
    /field "x" has the type "object"/,
  );
});

Deno.test("toElicitResult() sends content on accept and the reason in _meta otherwise", () => {
  assert.deepEqual(toElicitResult({ action: "accept", content: { a: 1 } }), {
    action: "accept",
    content: { a: 1 },
  });
  assert.deepEqual(toElicitResult({ action: "decline", reason: "nobody" }), {
    action: "decline",
    _meta: { "odek/reason": "nobody" },
  });
});

class Sink {
  text = "";
  write(p: Uint8Array): Promise<number> {
    this.text += new TextDecoder().decode(p);
    return Promise.resolve(p.length);
  }
}

async function atTerminal(typed: string, request: ElicitationRequest) {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/tty`, typed);
    const out = new Sink();
    const answer = await new TerminalClarifier({ ttyPath: `${dir}/tty`, output: out }).elicit(
      request,
    );
    return { answer, screen: out.text };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TerminalClarifier.elicit() asks field by field: defaults kept, choices by number, bad answers asked again", async () => {
  const request = toElicitationRequest(FORM, 'MCP server "demo"');
  const typed = [
    "y", // answer the form
    "A", // name: too short, asked again
    "Ada",
    "", // agree: default false
    "12", // count: above the maximum, asked again
    "4",
    "2", // color: green
    "Batman",
    "", // pet: optional, no default
    "1, 3", // tools: a, c
    "", // fish
    "not-an-email",
    "ada@localhost",
  ];
  const { answer, screen } = await atTerminal(typed.map((l) => `${l}\n`).join(""), request);
  assert.deepEqual(answer, {
    action: "accept",
    content: {
      name: "Ada",
      agree: false,
      count: 4,
      color: "green",
      hero: "h2",
      tools: ["a", "c"],
      email: "ada@localhost",
    },
  });
  assert.match(screen, /MCP server "demo" asks for input:\n {2}Please \\x1b\[2Jfill in/);
  assert.match(screen, /\(expected at least 2 characters\)/);
  assert.match(screen, /\(expected at most 9\)/);
  assert.match(screen, /color \(one of\)\n {4}1\) red\n {4}2\) green\n {2}> \[red\]/);
  assert.match(screen, /\(expected an email address\)/);
});

Deno.test("TerminalClarifier.elicit(): declined, cancelled, a closed terminal, and a URL shown but never opened", async (t) => {
  const request = toElicitationRequest(FORM, 'MCP server "demo"');
  await t.step("n declines", async () => {
    const { answer } = await atTerminal("n\n", request);
    assert.deepEqual(answer, { action: "decline", reason: "The operator declined." });
  });
  await t.step("c cancels", async () => {
    const { answer } = await atTerminal("c\n", request);
    assert.equal(answer.action, "cancel");
  });
  await t.step("the terminal closing mid-form cancels", async () => {
    const { answer } = await atTerminal("y\nAda\n", request);
    assert.equal(answer.action, "cancel");
  });
  await t.step("three bad answers decline with the field's name", async () => {
    const { answer } = await atTerminal("y\nA\nB\nC\n", request);
    assert.deepEqual(answer, {
      action: "decline",
      reason: 'The operator gave no valid answer for "name" in 3 tries.',
    });
  });
  await t.step("URL mode shows the URL and says odek does not open it", async () => {
    const url = toElicitationRequest(
      { mode: "url", message: "Consent", url: "http://127.0.0.1:9/consent", elicitationId: "e" },
      'MCP server "demo"',
    );
    const { answer, screen } = await atTerminal("y\n", url);
    assert.deepEqual(answer, { action: "accept", content: {} });
    assert.match(
      screen,
      /open a URL yourself \(odek does not open it\)[^]*http:\/\/127\.0\.0\.1:9\/consent/,
    );
  });
  await t.step("no terminal, or no operator: declined with the reason", async () => {
    const none = await new TerminalClarifier({ ttyPath: "/nonexistent/tty" }).elicit(request);
    assert.equal(none.action, "decline");
    assert.match(none.action === "decline" ? none.reason : "", /no terminal/);
    const nobody = await new NoOperatorClarifier("the run is non-interactive").elicit(request);
    assert.deepEqual(nobody, {
      action: "decline",
      reason: "Nobody can answer: the run is non-interactive.",
    });
  });
});
