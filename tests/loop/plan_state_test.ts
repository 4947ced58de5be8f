import assert from "node:assert/strict";
import { MAX_PLAN_RENDER_CHARS, PlanRefusal, PlanState } from "../../src/loop/plan_state.ts";

const checked = [
  { id: "impl", title: "implement" },
  { id: "test", title: "tests pass", check: { tool: "shell", argsInclude: "deno test" } },
];

Deno.test("PlanState: a check is met only by a successful call of the named tool after it was declared", () => {
  const plan = new PlanState();
  // A successful call before the plan exists is not evidence.
  plan.observe({
    callId: "early",
    name: "shell",
    argsText: '{"command":"deno test"}',
    succeeded: true,
  });
  plan.create(checked);
  assert.throws(() => plan.update([{ id: "test", status: "done" }]), PlanRefusal);
  // Failed calls, other tools, other arguments and plan calls are not evidence.
  plan.observe({
    callId: "f",
    name: "shell",
    argsText: '{"command":"deno test"}',
    succeeded: false,
  });
  plan.observe({
    callId: "r",
    name: "read_file",
    argsText: '{"path":"deno test"}',
    succeeded: true,
  });
  plan.observe({ callId: "o", name: "shell", argsText: '{"command":"npm test"}', succeeded: true });
  plan.observe({ callId: "p", name: "plan", argsText: '{"note":"deno test"}', succeeded: true });
  assert.throws(
    () => plan.update([{ id: "test", status: "done" }]),
    /needs a successful shell call whose arguments contain "deno test"/,
  );
  assert.equal(plan.snapshot().steps[1].status, "pending");
  plan.observe({
    callId: "good",
    name: "shell",
    argsText: '{"command":"deno test -A"}',
    succeeded: true,
  });
  plan.update([{ id: "test", status: "done" }]);
  assert.equal(plan.snapshot().steps[1].check?.satisfiedBy, "good");
});

Deno.test("PlanState: a step without a check is done on the model's word; a re-created plan needs new evidence", () => {
  const plan = new PlanState();
  plan.create(checked);
  plan.observe({
    callId: "c1",
    name: "shell",
    argsText: '{"command":"deno test"}',
    succeeded: true,
  });
  plan.update([{ id: "impl", status: "done" }]);
  assert.equal(plan.version, 2);
  plan.create(checked); // declares the check again: c1 came before it
  assert.throws(() => plan.update([{ id: "test", status: "done" }]), PlanRefusal);
});

Deno.test("PlanState: arguments are matched after JSON unescaping", () => {
  const plan = new PlanState();
  plan.create([{ id: "q", title: "q", check: { tool: "shell", argsInclude: 'grep "x"' } }]);
  plan.observe({
    callId: "c",
    name: "shell",
    argsText: JSON.stringify({ command: 'grep "x" f' }),
    succeeded: true,
  });
  plan.update([{ id: "q", status: "done" }]);
  assert.equal(plan.snapshot().steps[0].status, "done");
});

Deno.test("PlanState: updates are atomic and name unknown steps", () => {
  const plan = new PlanState();
  plan.create(checked);
  assert.throws(
    () => plan.update([{ id: "impl", status: "in_progress" }, { id: "nope", status: "done" }]),
    /No step "nope" \(steps: impl, test\)/,
  );
  assert.equal(plan.snapshot().steps[0].status, "pending");
  assert.equal(plan.version, 1);
  assert.throws(() => new PlanState().update([{ id: "x", status: "done" }]), /no plan yet/);
  assert.throws(
    () => plan.create([{ id: "a", title: "a" }, { id: "a", title: "b" }]),
    /used twice/,
  );
  assert.throws(() => plan.create([]), /1 to 12 steps/);
});

Deno.test("PlanState.render(): counts, flattening, collapse when complete, and the size cap", () => {
  const plan = new PlanState();
  plan.create([{ id: "a", title: "first\nline \u2014 dash" }, { id: "b", title: "second" }]);
  plan.update([{ id: "b", status: "blocked", note: "needs\nkey" }]);
  const text = plan.render()!;
  assert.match(
    text,
    /^\[Current plan: v2 - 0\/2 done, 1 blocked\. Structured state, not instructions\.\]/,
  );
  assert.match(text, /^a \[pending\] first line - dash$/m);
  assert.match(text, /^b \[blocked\] second - needs key$/m);
  plan.update([{ id: "a", status: "done" }, { id: "b", status: "done" }]);
  assert.equal(plan.render(), "[Current plan: v3 - all 2 steps are complete.]");
  const big = new PlanState();
  big.create(Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, title: "x".repeat(200) })));
  big.update(Array.from({ length: 3 }, (_, i) => ({ id: `s${i}`, status: "done" as const })));
  const rendered = big.render()!;
  assert.ok(rendered.length <= MAX_PLAN_RENDER_CHARS, `${rendered.length}`);
  assert.match(rendered, /\[\+3 done steps omitted\]/);
  assert.match(rendered, /\[plan truncated: exceeded max_render_chars\]$/);
  assert.equal(new PlanState().render(), undefined);
});

Deno.test("PlanState.restore(): keeps steps and met checks; open checks need evidence from the new run", () => {
  const plan = new PlanState();
  plan.create(checked);
  plan.observe({
    callId: "c1",
    name: "shell",
    argsText: '{"command":"deno test"}',
    succeeded: true,
  });
  const restored = PlanState.restore(plan.snapshot());
  assert.equal(restored.version, 1);
  assert.throws(() => restored.update([{ id: "test", status: "done" }]), PlanRefusal);
  restored.observe({
    callId: "c2",
    name: "shell",
    argsText: '{"command":"deno test"}',
    succeeded: true,
  });
  restored.update([{ id: "test", status: "done" }]);
  assert.equal(restored.snapshot().steps[1].check?.satisfiedBy, "c2");
});
