export { startScriptedModel, finishingScript, type Script, type Step, type ScriptedModel } from './server';
export { scriptedProviderConfig } from './provider-config';
export { textOf, toolNames, type ChatRequest, type ChatMessage } from './chat-request';
