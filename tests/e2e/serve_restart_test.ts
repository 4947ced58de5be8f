/**
 * Issue 20: a run waiting on an approval survives `odek serve` being killed with SIGKILL and
 * restarted. A real `odek serve` against the fake model server: start a run over REST, wait
 * for its approval, kill the server, start another on the same ODEK_HOME, find the approval
 * pending again, answer it, and see the run go on from its last completed step.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

interface Serving {
  child: Deno.ChildProcess;
  origin: string;
  token: string;
  call(path: string, init?: RequestInit): Promise<Response>;
}

async function serve(fx: Awaited<ReturnType<typeof odekFixture>>, baseUrl: string) {
  const child = fx.spawn(["serve", "--port", "0"], {
    env: { ODEK_BASE_URL: baseUrl, ODEK_API_KEY: "test-key", ODEK_SANDBOX: "none" },
  });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const deadline = AbortSignal.timeout(60_000);
  while (!/open (http:\/\/\S+)\n/.test(out)) {
    if (deadline.aborted) throw new Error(`odek serve printed no address: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`odek serve exited: ${out}`);
    out += value;
  }
  reader.releaseLock();
  void child.stdout.cancel().catch(() => {});
  void child.stderr.cancel().catch(() => {});
  const url = new URL(out.match(/open (http:\/\/\S+)\n/)![1]);
  const token = url.searchParams.get("token")!;
  const serving: Serving = {
    child,
    origin: url.origin,
    token,
    call: (path, init = {}) =>
      fetch(`${url.origin}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...init.headers,
        },
      }),
  };
  return serving;
}

async function poll<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (true) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Pending = { id: string; session_id: string; calls: { call_id: string }[] };

async function pendingApproval(s: Serving): Promise<Pending | undefined> {
  const response = await s.call("/api/approvals");
  const { pending } = await response.json() as { pending: Pending[] };
  return pending[0];
}

Deno.test("a run waiting on an approval survives odek serve killed with SIGKILL and restarted", async () => {
  await using fx = await odekFixture();
  const outside = join(fx.home, "outside");
  await Deno.mkdir(outside);
  const canary = join(outside, "canary.txt");
  await using model = await startFakeOpenAIServer({
    turns: (_request, index) =>
      index === 0
        ? {
          toolCalls: [{
            id: "w1",
            name: "write_file",
            arguments: { path: canary, content: "approved after the restart\n" },
          }],
        }
        : { text: "wrote it" },
  });
  const first = await serve(fx, model.url);
  let second: Serving | undefined;
  try {
    const started = await first.call("/api/runs", {
      method: "POST",
      body: JSON.stringify({ task: "write the canary" }),
    });
    assert.equal(started.status, 202);
    const { session_id } = await started.json() as { session_id: string };
    const asked = await poll("the approval", () => pendingApproval(first));
    assert.equal(asked.calls[0].call_id, "w1");
    first.child.kill("SIGKILL");
    assert.equal((await first.child.status).signal, "SIGKILL");

    second = await serve(fx, model.url);
    const again = await poll("the approval after the restart", () => pendingApproval(second!));
    assert.equal(again.session_id, session_id);
    assert.equal(again.calls[0].call_id, "w1");
    assert.equal(model.requests.length, 1, "the model was not asked again for the same step");
    const answered = await second.call(`/api/approvals/${again.id}`, {
      method: "POST",
      body: JSON.stringify({ decisions: [{ call_id: "w1", approved: true }] }),
    });
    assert.equal(answered.status, 204);
    const done = await poll("the resumed run's end", async () => {
      const { runs } = await (await second!.call("/api/runs")).json() as {
        runs: { session_id: string; state: string; summary?: string }[];
      };
      return runs.find((r) => r.session_id === session_id && r.state === "completed");
    });
    assert.equal(done.summary, "wrote it");
    assert.equal(await Deno.readTextFile(canary), "approved after the restart\n");
    const results = model.requests[1].body.messages.filter((m: { role: string }) =>
      m.role === "tool"
    );
    assert.equal(results.length, 1);
  } finally {
    for (const s of [first, second]) {
      if (!s) continue;
      try {
        s.child.kill("SIGTERM");
      } catch {
        // it is gone already
      }
      await s.child.status;
    }
  }
});
