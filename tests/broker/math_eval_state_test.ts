// Found by the adversarial review: math_eval's `config(...)` changed the one mathjs instance the
// long-lived compute child shares across calls, so one call (say, following a hostile web page)
// silently changed every later result: numbers became BigNumbers, tolerances loosened.
import assert from "node:assert/strict";
import { mathEval as mathEvalHandler } from "../../tools/_math_eval.ts";
import { failsWith, viaCatalogue } from "./_workspace.ts";

const mathEval = viaCatalogue("math_eval", mathEvalHandler);

Deno.test("mathEval() refuses config(), so no call changes how later calls compute", async () => {
  await assert.rejects(
    mathEval("/", { expression: "config({number: 'BigNumber', relTol: 1})" }),
    failsWith("invalid_arguments", /config is disabled/),
  );
  assert.equal(await mathEval("/", { expression: "typeOf(1)" }), '"number"');
  assert.equal(await mathEval("/", { expression: "equal(1, 1.5)" }), "false");
});
