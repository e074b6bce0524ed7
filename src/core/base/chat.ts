/** One message of a chat prompt: what a task's `messages` resolve to and what a provider is sent. */
export interface ChatMessage {
  readonly role: string;
  readonly content: string;
  /** An assistant turn's tool calls (OpenAI `tool_calls`), in agent tasks. */
  readonly tool_calls?: readonly ToolCall[];
  /** A `tool` message: the call it answers. */
  readonly tool_call_id?: string;
  /** A `tool` message: the tool's name. */
  readonly name?: string;
}

/** A tool the model may call (OpenAI `tools[].function`): its arguments as a JSON Schema. */
export interface ToolSpec {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** One tool call of an assistant turn; `arguments` is the JSON text the model wrote, unparsed. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}
