/**
 * Fakes for testing code built on odek: a fake OpenAI-compatible HTTP server and an in-process
 * scripted model, both driven by the same {@linkcode ScriptedTurn} script.
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
