/**
 * Public fakes for testing odek and code built on it: a fake OpenAI-compatible HTTP server and an
 * in-process scripted model, both driven by the same {@linkcode ScriptedTurn} script.
 *
 * @module
 */
export {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  type Fault,
  type RecordedRequest,
  type ScriptedToolCall,
  type ScriptedTurn,
  startFakeOpenAIServer,
} from "./fake_openai_server.ts";
export {
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedModelRequest,
  type ScriptedModelTurns,
} from "./scripted_model.ts";
export { type ResetProxy, type ResetProxyOptions, startResetProxy } from "./reset_proxy.ts";
export { FakeClock, type FakeClockOptions } from "./fake_clock.ts";
export { FakeBroker, type FakeBrokerCall, type FakeToolHandler } from "./fake_broker.ts";
export { untrustedBody } from "./untrusted_body.ts";
