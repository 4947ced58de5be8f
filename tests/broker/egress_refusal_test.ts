// An egress refusal reaches the model with the host, port and reason taken from fields: the
// destination the web child reported, the decision the proxy reported. The child's own text is
// never read, so its wording does not matter.
import assert from "node:assert/strict";
import { egressRefusalMessage, withEgressDecision } from "../../src/broker/_egress_refusal.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";

const egress = { url: "https://127.0.0.1:8443/x", host: "127.0.0.1", port: 8443 };
const refused: ToolResult = {
  ok: false,
  error: { kind: "denied", message: "some text in no particular words", egress },
};

Deno.test("withEgressDecision() takes the reason from the proxy's decision on that host and port", () => {
  const result = withEgressDecision(refused, [
    { host: "127.0.0.1", port: 9999, allowed: false, reason: "another port" },
    { host: "127.0.0.1", port: 8443, allowed: false, reason: "loopback address" },
    { host: "127.0.0.2", port: 8443, allowed: false, reason: "another host" },
    { host: "127.0.0.1", port: 8443, allowed: true },
  ]);
  assert.ok(!result.ok);
  assert.deepEqual(result.error.egress, {
    ...egress,
    decision: { allowed: false, reason: "loopback address" },
  });
  assert.equal(result.error.kind, "denied");
  assert.match(
    result.error.message,
    /^The egress proxy refused 127\.0\.0\.1:8443: loopback address\./,
  );
  assert.doesNotMatch(result.error.message, /no particular words/);
});

Deno.test("withEgressDecision() says the host could not be reached when the proxy allowed it", () => {
  const result = withEgressDecision(refused, [
    { host: "127.0.0.1", port: 8443, allowed: true, reason: "cannot connect (refused)" },
  ]);
  assert.ok(!result.ok);
  assert.equal(
    result.error.message,
    "The egress proxy could not reach 127.0.0.1:8443 (https://127.0.0.1:8443/x): cannot connect (refused).",
  );
});

Deno.test("withEgressDecision() leaves other results alone and names an unmatched destination", () => {
  const plain: ToolResult = { ok: false, error: { kind: "denied", message: "could not reach x" } };
  assert.equal(
    withEgressDecision(plain, [{ host: "x", port: 1, allowed: false, reason: "r" }]),
    plain,
  );
  assert.equal(withEgressDecision(refused, []), refused);
  assert.match(
    egressRefusalMessage({ ...egress, host: "::1" }),
    /refused or could not reach \[::1\]:8443/,
  );
});
