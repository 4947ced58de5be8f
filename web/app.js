// odek serve's page: no build step. It talks to the REST API (same origin, the HttpOnly cookie
// carries the token) and follows every run over the WebSocket, resuming after the last event it
// saw. Model text is rendered as markdown by marked, sanitised by DOMPurify, highlighted by
// highlight.js (all served by odek from pinned npm packages).
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  session: null, // the selected session's id
  run: null, // its run record while queued or going
  lastEventId: sessionStorage.getItem("odek.lastEventId") || "",
  live: null, // { text, reasoning, el } of the turn being streamed
  tools: new Map(), // call_id -> card element of the selected session
  pending: new Map(), // request id -> request
  socket: null,
  refetch: 0,
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== false) {
      node.setAttribute(key, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

function markdown(text) {
  const node = el("div", { class: "md" });
  if (globalThis.marked && globalThis.DOMPurify) {
    node.innerHTML = globalThis.DOMPurify.sanitize(globalThis.marked.parse(text ?? ""));
    if (globalThis.hljs) {
      node.querySelectorAll("pre code").forEach((c) => globalThis.hljs.highlightElement(c));
    }
  } else {
    node.append(el("p", {}, text ?? ""));
  }
  return node;
}

async function api(path, init = {}) {
  const response = await fetch(path, {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers || {}) },
    credentials: "same-origin",
  });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error?.message || `HTTP ${response.status}`);
  return body;
}

function status(text) {
  $("status").textContent = text;
}

// ---- the session list ----------------------------------------------------------------------

async function loadSessions() {
  const q = $("search").value.trim();
  const { sessions } = await api(
    `/api/sessions?limit=100${q ? `&q=${encodeURIComponent(q)}` : ""}`,
  );
  const list = $("sessions");
  list.replaceChildren(...sessions.map((s) => {
    const running = s.run && (s.run.state === "running" || s.run.state === "queued");
    return el(
      "li",
      {},
      el(
        "button",
        {
          type: "button",
          class: `session${s.id === state.session ? " current" : ""}`,
          "aria-current": s.id === state.session ? "true" : undefined,
          "data-session": s.id,
          onclick: () => selectSession(s.id),
        },
        el("span", { class: "title" }, s.title || s.id),
        el(
          "span",
          { class: "meta" },
          running ? `● ${s.run.state}` : new Date(s.updated_at).toLocaleString(),
        ),
      ),
    );
  }));
}

// ---- one session ---------------------------------------------------------------------------

async function selectSession(id) {
  state.session = id;
  sessionStorage.setItem("odek.session", id || "");
  state.live = null;
  state.tools.clear();
  $("transcript").replaceChildren();
  closeMenu();
  if (!id) {
    state.run = null;
    $("session-title").textContent = "New session";
    $("usage").textContent = "";
    renderWarnings(null);
    renderRunState();
    renderPending();
    return loadSessions();
  }
  await renderSession();
  await loadSessions();
  $("composer-input").focus();
}

async function renderSession() {
  const id = state.session;
  const session = await api(`/api/sessions/${encodeURIComponent(id)}`);
  if (state.session !== id) return;
  $("session-title").textContent = session.title || session.id;
  state.run = session.run && (session.run.state === "running" || session.run.state === "queued")
    ? session.run
    : null;
  const transcript = $("transcript");
  transcript.replaceChildren();
  state.tools.clear();
  const results = new Map();
  for (const m of session.messages) if (m.role === "tool") results.set(m.tool_call_id, m.content);
  for (const m of session.messages) {
    if (m.role === "user" && typeof m.content === "string" && !m.content.startsWith("[odek")) {
      transcript.append(
        el("li", { class: "msg user" }, el("span", { class: "who" }, "You"), markdown(m.content)),
      );
    } else if (m.role === "assistant") {
      if (m.content) {
        transcript.append(
          el(
            "li",
            { class: "msg assistant" },
            el("span", { class: "who" }, "odek"),
            markdown(m.content),
          ),
        );
      }
      for (const call of m.tool_calls || []) {
        const card = toolCard(call.id, call.function?.name, call.function?.arguments);
        if (results.has(call.id)) {
          const output = String(results.get(call.id));
          finishCard(card, !/^error \(/.test(output), output);
        }
        transcript.append(card);
      }
    }
  }
  if (state.live && state.live.el) transcript.append(state.live.el);
  renderWarnings(session.run || (session.runs || []).at(-1));
  renderRunState();
  renderPending();
  await renderUsage();
  transcript.lastElementChild?.scrollIntoView({ block: "end" });
}

function scheduleRefetch() {
  clearTimeout(state.refetch);
  state.refetch = setTimeout(() => {
    if (state.session) renderSession().catch((e) => status(e.message));
  }, 150);
}

async function renderUsage() {
  if (!state.session) return;
  const { sessions } = await api("/api/usage");
  const u = sessions[state.session];
  $("usage").textContent = u
    ? `${u.input_tokens} tokens in · ${u.output_tokens} out · ${u.tool_calls} tool calls${
      u.cost_usd ? ` · $${u.cost_usd.toFixed(4)}` : ""
    }`
    : "";
}

/** The session host's warnings (no bwrap, no egress proxy, project keys ignored) of its run. */
function renderWarnings(run) {
  const list = $("warnings");
  const warnings = (run && run.warnings) || [];
  list.replaceChildren(...warnings.map((w) => el("li", {}, w)));
  list.hidden = warnings.length === 0;
}

function renderRunState() {
  const run = state.run;
  $("cancel").hidden = !run;
  status(
    run ? (run.state === "queued" ? `queued: ${run.queued_reason || "waiting"}` : "running…") : "",
  );
}

function toolCard(callId, name, args) {
  let shown = args ?? "";
  try {
    const parsed = typeof args === "string" ? JSON.parse(args) : args;
    shown = parsed?.command ?? JSON.stringify(parsed, null, 2);
  } catch {
    // arguments that are not JSON are shown as they are
  }
  const card = el(
    "li",
    {
      class: "tool running",
      "data-call": callId,
      role: "group",
      "aria-label": `Tool call ${name}`,
    },
    el(
      "div",
      { class: "tool-head" },
      el("span", { class: "tool-name" }, name || "tool"),
      el("span", { class: "tool-state" }, "running"),
    ),
    el("pre", { class: "tool-args" }, String(shown)),
  );
  state.tools.set(callId, card);
  return card;
}

function finishCard(card, ok, output) {
  card.classList.remove("running");
  card.classList.add(ok ? "ok" : "failed");
  card.querySelector(".tool-state").textContent = ok ? "done" : "failed";
  if (output) {
    card.append(
      el("details", {}, el("summary", {}, "Output"), el("pre", { class: "tool-output" }, output)),
    );
  }
}

function liveBubble() {
  if (!state.live) {
    const body = el("div", { class: "md" });
    const node = el(
      "li",
      { class: "msg assistant live" },
      el("span", { class: "who" }, "odek"),
      body,
    );
    state.live = { text: "", reasoning: "", el: node, body, thinking: null, frame: 0 };
    $("transcript").append(node);
  }
  return state.live;
}

function onRunEvent(event) {
  if (event.session_id !== state.session) {
    if (
      event.type === "run_started" || event.type === "run_completed" || event.type === "run_failed"
    ) loadSessions();
    return;
  }
  const d = event.data || {};
  switch (event.type) {
    case "run_started":
      state.run = { state: "running", run_id: event.run_id, key: event.run_id };
      renderRunState();
      loadSessions();
      break;
    case "text_delta": {
      const live = liveBubble();
      live.text += d.text;
      cancelAnimationFrame(live.frame);
      live.frame = requestAnimationFrame(() => live.body.replaceChildren(markdown(live.text)));
      break;
    }
    case "reasoning_delta": {
      const live = liveBubble();
      live.reasoning += d.text;
      if (!live.thinking) {
        live.thinking = el(
          "details",
          { class: "reasoning" },
          el("summary", {}, "Reasoning"),
          el("pre"),
        );
        live.el.insertBefore(live.thinking, live.body);
      }
      live.thinking.querySelector("pre").textContent = live.reasoning;
      break;
    }
    case "assistant_message":
      state.live = null;
      scheduleRefetch();
      break;
    case "tool_call_started": {
      const card = state.tools.get(d.call_id) || toolCard(d.call_id, d.name, d.args);
      if (!card.isConnected) $("transcript").append(card);
      break;
    }
    case "tool_running": {
      const card = state.tools.get(d.call_id);
      if (card) {
        card.querySelector(".tool-state").textContent = `running ${
          Math.round(d.elapsed_ms / 1000)
        } s`;
      }
      break;
    }
    case "tool_call_completed":
    case "tool_call_failed": {
      const card = state.tools.get(d.call_id);
      if (card) {
        finishCard(card, event.type === "tool_call_completed", d.preview || d.message || "");
      }
      break;
    }
    case "files_changed":
      for (const file of d.files || []) {
        const card = state.tools.get((d.call_ids || [])[0]);
        const diff = el(
          "details",
          { class: "diff" },
          el("summary", {}, `${file.change} ${file.path} +${file.added} −${file.removed}`),
          el("pre", {}, file.diff || ""),
        );
        (card || $("transcript")).append(diff);
      }
      break;
    case "run_completed":
    case "run_failed":
      state.run = null;
      state.live = null;
      renderRunState();
      if (event.type === "run_failed") status(`stopped: ${d.message}`);
      scheduleRefetch();
      loadSessions();
      break;
    default:
      break;
  }
}

// ---- approvals and clarifications -----------------------------------------------------------

function renderPending() {
  const box = $("pending");
  const mine = [...state.pending.values()].filter((r) => r.session_id === state.session);
  box.replaceChildren(
    ...mine.map((request) =>
      request.type === "approval" ? approvalCard(request) : clarifyCard(request)
    ),
  );
}

function approvalCard(request) {
  const reason = el("input", {
    type: "text",
    class: "deny-reason",
    placeholder: "Why (the model reads it)",
    "aria-label": "Reason for denying",
  });
  const answer = (approved) =>
    send({
      type: "approval_response",
      id: request.id,
      decisions: request.calls.map((c) => ({
        call_id: c.call_id,
        approved,
        ...(reason.value.trim() ? { reason: reason.value.trim() } : {}),
      })),
    });
  return el(
    "article",
    {
      class: "approval",
      role: "alertdialog",
      "aria-label": "Approval needed",
      "data-request": request.id,
    },
    el("h3", {}, "Approve?"),
    ...request.calls.map((c) =>
      el(
        "div",
        { class: "approval-call" },
        el(
          "p",
          {},
          el("strong", {}, c.tool_name),
          " · risk: ",
          el("span", { class: "risk" }, c.risk_classes.join(", ")),
        ),
        el("pre", { class: "preview" }, c.preview),
        el("p", { class: "reason" }, c.reason),
      )
    ),
    reason,
    el(
      "div",
      { class: "actions" },
      el("button", { type: "button", class: "approve", onclick: () => answer(true) }, "Approve"),
      el("button", { type: "button", class: "deny", onclick: () => answer(false) }, "Deny"),
    ),
  );
}

function clarifyCard(request) {
  const input = el("input", { type: "text", "aria-label": "Your answer" });
  return el(
    "article",
    {
      class: "clarify",
      role: "alertdialog",
      "aria-label": "Question from odek",
      "data-request": request.id,
    },
    el("h3", {}, "odek asks"),
    el("p", {}, request.question),
    input,
    el(
      "div",
      { class: "actions" },
      el("button", {
        type: "button",
        onclick: () =>
          input.value.trim() &&
          send({ type: "clarification_response", id: request.id, answer: input.value.trim() }),
      }, "Answer"),
      el("button", {
        type: "button",
        onclick: () =>
          send({
            type: "clarification_response",
            id: request.id,
            declined: "the operator declined",
          }),
      }, "Decline"),
    ),
  );
}

// ---- the live connection --------------------------------------------------------------------

function send(message) {
  if (state.socket?.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
  else status("not connected: retrying…");
}

function connect(delay = 500) {
  const url = new URL("/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (state.lastEventId) url.searchParams.set("after", state.lastEventId);
  const socket = new WebSocket(url);
  state.socket = socket;
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "hello") {
      state.pending = new Map(data.pending.map((r) => [r.id, r]));
      renderPending();
      if (!data.resumed) scheduleRefetch();
    } else if (data.type === "event") {
      state.lastEventId = data.event.id;
      sessionStorage.setItem("odek.lastEventId", data.event.id);
      onRunEvent(data.event);
    } else if (data.type === "request") {
      if (data.change === "asked") state.pending.set(data.request.id, data.request);
      else state.pending.delete(data.request.id);
      renderPending();
      if (data.change === "asked" && data.request.session_id !== state.session) {
        status("a run is waiting for you");
      }
    } else if (data.type === "error") {
      status(data.message);
    }
  };
  socket.onopen = () => {
    delay = 500;
  };
  socket.onclose = () => {
    state.socket = null;
    setTimeout(() => connect(Math.min(delay * 2, 10_000)), delay);
  };
}

// ---- the composer and the menu --------------------------------------------------------------

async function submit(event) {
  event.preventDefault();
  const input = $("composer-input");
  const text = input.value.trim();
  if (!text) return;
  try {
    const run = await api("/api/runs", {
      method: "POST",
      body: JSON.stringify(
        state.session ? { session_id: state.session, message: text } : { task: text },
      ),
    });
    input.value = "";
    state.run = run;
    if (!state.session) await selectSession(run.session_id);
    else await renderSession();
    if (run.state === "queued") state.run = run;
    renderRunState();
  } catch (error) {
    status(error.message);
  }
}

function closeMenu() {
  document.body.classList.remove("menu-open");
  $("menu").setAttribute("aria-expanded", "false");
}

document.addEventListener("DOMContentLoaded", () => {
  $("composer").addEventListener("submit", submit);
  $("composer-input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("composer").requestSubmit();
  });
  $("cancel").addEventListener(
    "click",
    () => state.run && send({ type: "cancel", key: state.run.run_id || state.run.key }),
  );
  $("new-session").addEventListener("click", () => selectSession(null));
  $("search").addEventListener("input", () => loadSessions().catch((e) => status(e.message)));
  $("menu").addEventListener("click", () => {
    const open = document.body.classList.toggle("menu-open");
    $("menu").setAttribute("aria-expanded", String(open));
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeMenu();
  });
  connect();
  const remembered = sessionStorage.getItem("odek.session");
  (remembered ? selectSession(remembered) : loadSessions()).catch((e) => status(e.message));
});
