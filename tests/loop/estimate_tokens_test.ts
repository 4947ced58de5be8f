import assert from "node:assert/strict";
import {
  estimateMessageTokens,
  estimateToolSpecTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  utf8Length,
} from "../../src/loop/estimate_tokens.ts";
import { builtinToolSpecs } from "../../src/loop/builtin_tool_specs.ts";

Deno.test("utf8Length() matches TextEncoder on mixed text", () => {
  const text = "plain ascii, é, 中文, 😀 and \u{10FFFF}";
  assert.equal(utf8Length(text), new TextEncoder().encode(text).length);
});

Deno.test("estimateMessageTokens() counts content, reasoning and tool-call arguments", () => {
  const plain = estimateMessageTokens({ role: "assistant", content: "x".repeat(400) });
  assert.equal(plain, 100 + MESSAGE_OVERHEAD_TOKENS);
  const withReasoning = estimateMessageTokens({
    role: "assistant",
    content: "x".repeat(400),
    reasoning_content: "r".repeat(400),
  });
  assert.equal(withReasoning, 200 + MESSAGE_OVERHEAD_TOKENS);
  const withCall = estimateMessageTokens({
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: { name: "shell", arguments: JSON.stringify({ command: "y".repeat(800) }) },
    }],
  });
  assert.ok(
    withCall >= 200 + MESSAGE_OVERHEAD_TOKENS + TOOL_CALL_OVERHEAD_TOKENS,
    String(withCall),
  );
  // Multi-byte text counts by bytes: 400 × "中" is 1200 bytes.
  assert.equal(
    estimateMessageTokens({ role: "user", content: "中".repeat(400) }),
    300 + MESSAGE_OVERHEAD_TOKENS,
  );
});

Deno.test("estimateToolSpecTokens() counts the schemas and follows a growing array", () => {
  const specs = builtinToolSpecs();
  const tokens = estimateToolSpecTokens(specs);
  assert.equal(tokens, Math.ceil(new TextEncoder().encode(JSON.stringify(specs)).length / 4));
  specs.push({
    type: "function",
    function: { name: "x", description: "d".repeat(400), parameters: {} },
  });
  assert.ok(estimateToolSpecTokens(specs) > tokens + 100);
  assert.equal(estimateToolSpecTokens([]), 0);
});
